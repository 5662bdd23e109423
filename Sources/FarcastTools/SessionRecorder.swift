import Foundation
import RFB

/// Writes a session's server messages as FBS 001.000, the format rfbproxy, vncrec and
/// shared/tools/rfbrec.py write, so `viewer play`, `viewer bench` and rfbreplay.py read it.
///
/// What is written is the decrypted message stream (a TLS or RSA-AES session records like any
/// other) as `RecordingFilter` keeps it, after a handshake of our own: RFB 3.8, security None,
/// and a ServerInit with the size and pixel format the messages are in. A recording started
/// mid-session begins at a message boundary and the session asks for a full update, so it
/// starts with a whole picture. Blocks are written as they arrive, stamped with milliseconds
/// since the recording began.
///
/// With `maxBytes`, the file never grows past it: the block that would cross it is not
/// written, the file is closed (whole blocks only, so it plays to that point) and `stopped`
/// says why; `onStop` tells the front end.
///
/// The engine's thread writes (a session gives it to each connection's engine); any thread may
/// `close()`, and whoever made the recorder closes it. The file is the caller's to make
/// (`PrivateFile`: mode 0600, exclusively, no link followed): a recording holds whatever was
/// on the remote screen.
public final class SessionRecorder: RecordingObserver, @unchecked Sendable {
    public let path: String
    /// The largest the file may grow (bytes, FBS framing included); nil: no limit.
    public let maxBytes: Int?
    private let lock = NSLock()
    private var fd: Int32
    private var startedAt: Double?
    private var size: (w: Int, h: Int)?
    private var clock: () -> Double
    /// What of the stream is kept; its output is written as blocks. Engine thread.
    private lazy var filter = RecordingFilter { [unowned self] in written($0) }
    /// Message bytes written so far (not counting the FBS framing).
    public private(set) var bytes = 0
    /// Bytes in the file so far (header and framing included).
    public private(set) var fileBytes = 0
    /// The first write error; the recording stops there.
    public private(set) var failure: String?
    /// The recording reached `maxBytes` and stopped there.
    public private(set) var limitReached = false
    /// Called once, on the engine's thread, when the recording stops by itself (the size limit
    /// or a write error); set before the recording starts.
    public var onStop: (@Sendable () -> Void)?

    /// Into the file `fileDescriptor` (made for `path`, which names it in messages); the
    /// recorder writes the FBS header now and closes `fileDescriptor` in `close()`. `clock`:
    /// monotonic seconds.
    public init(path: String, fileDescriptor: Int32, maxBytes: Int? = nil, clock: @escaping () -> Double = monotonicSeconds) {
        self.path = path
        self.maxBytes = maxBytes
        self.clock = clock
        fd = fileDescriptor
        write(FBSEncoder.header)
    }

    deinit { close() }

    public func close() {
        lock.withLock {
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
        }
    }

    /// Seconds recorded so far.
    public var seconds: Double { lock.withLock { startedAt.map { clock() - $0 } ?? 0 } }

    /// The recording stopped by itself (the size limit or a write error).
    public var stopped: Bool { lock.withLock { limitReached || failure != nil } }

    public func recordingStarted(at offset: Int, width: Int, height: Int, name: String, format: PixelFormat) {
        filter.start(at: offset)
        lock.withLock {
            guard fd >= 0 else { return }
            guard let size else {
                startedAt = clock()
                self.size = (width, height)
                block(FBSEncoder.handshake(width: width, height: height, format: format, name: name))
                return
            }
            // a later connection of the same session: only its size can differ from the stream's
            guard size.w != width || size.h != height else { return }
            self.size = (width, height)
            let update: [UInt8] = [0, 0, 0, 1] + [0, 0, 0, 0]
                + [UInt8(width >> 8 & 0xff), UInt8(width & 0xff), UInt8(height >> 8 & 0xff), UInt8(height & 0xff)]
                + [0xff, 0xff, 0xff, 0x21]   // DesktopSize (-223)
            block(update)
        }
        notifyIfStopped()
    }

    public func parsed(_ unit: ServerUnit, from: Int, to: Int) { filter.parsed(unit, from: from, to: to) }

    public func consumed(_ bytes: UnsafeRawBufferPointer, at offset: Int) { filter.consumed(bytes, at: offset) }

    /// What the filter kept.
    private func written(_ data: UnsafeRawBufferPointer) {
        lock.withLock {
            guard fd >= 0, startedAt != nil else { return }
            if writeBlock(data) { bytes += data.count }
        }
        notifyIfStopped()
    }

    private var stopNotified = false

    /// `onStop`, once, outside the lock.
    private func notifyIfStopped() {
        let notify: Bool = lock.withLock {
            guard (limitReached || failure != nil) && !stopNotified else { return false }
            stopNotified = true
            return true
        }
        if notify { onStop?() }
    }

    private func block(_ data: [UInt8]) { data.withUnsafeBytes { _ = writeBlock($0) } }

    /// One block, unless it would take the file past `maxBytes` (then the recording stops
    /// there); true when written.
    private func writeBlock(_ data: UnsafeRawBufferPointer) -> Bool {
        guard fd >= 0 else { return false }
        // length, the data padded to 4, timestamp
        let framed = 8 + (data.count + 3) / 4 * 4
        if let cap = maxBytes, fileBytes + framed > cap {
            limitReached = true
            _ = Glibc.close(fd); fd = -1
            return false
        }
        let ms = UInt32(clamping: Int(((clock() - (startedAt ?? clock())) * 1000).rounded()))
        write(FBSEncoder.block(data, ms: ms))
        return failure == nil
    }

    private func write(_ out: [UInt8]) {
        guard fd >= 0 else { return }
        var off = 0
        out.withUnsafeBytes { b in
            guard let base = b.baseAddress else { return }
            while off < b.count {
                let n = Glibc.write(fd, base + off, b.count - off)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    failure = failure ?? "writing the recording \(path) failed: \(String(cString: strerror(errno)))"
                    _ = Glibc.close(fd); fd = -1
                    return
                }
                off += n
            }
            fileBytes += off
        }
    }
}
