import Foundation
import RFB

/// Writes a session's server messages as FBS 001.000, the format rfbproxy, vncrec and
/// shared/tools/rfbrec.py write, so `viewer play`, `viewer bench` and rfbreplay.py read it.
///
/// What is written is the decrypted message stream (a TLS or RSA-AES session records like any
/// other) after a handshake of our own: RFB 3.8, security None, and a ServerInit with the size
/// and pixel format the messages are in. A recording started mid-session begins at a message
/// boundary and the session asks for a full update, so it starts with a whole picture. Blocks
/// are written as they arrive, stamped with milliseconds since the recording began.
///
/// The engine's thread writes; any thread may `close()`. Files are made by `PrivateFile` (mode
/// 0600, exclusively, no link followed): a recording holds whatever was on the remote screen.
public final class SessionRecorder: MessageTap, @unchecked Sendable {
    public let path: String
    private let lock = NSLock()
    private var fd: Int32
    private var startedAt: Double?
    private var size: (w: Int, h: Int)?
    private var clock: () -> Double
    /// Message bytes written so far (not counting the FBS framing).
    public private(set) var bytes = 0
    /// The first write error; the recording stops there.
    public private(set) var failure: String?

    /// Into `path` (`-o FILE`): a regular file there is replaced, a link is not followed.
    public convenience init(path: String, clock: @escaping () -> Double = monotonicSeconds) throws {
        let fd: Int32
        do { fd = try PrivateFile.create(path, replacingRegularFile: true) } catch {
            throw TransportError("the recording: \(error)")
        }
        self.init(path: path, fileDescriptor: fd, clock: clock)
    }

    /// Into a file already made (`PrivateFile.createFresh`); the recorder closes `fileDescriptor`.
    public init(path: String, fileDescriptor: Int32, clock: @escaping () -> Double = monotonicSeconds) {
        self.path = path
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

    public func tapStarted(width: Int, height: Int, name: String, format: PixelFormat) {
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
    }

    public func tapped(_ data: UnsafeRawBufferPointer) {
        lock.withLock {
            guard fd >= 0, startedAt != nil else { return }
            bytes += data.count
            writeBlock(data)
        }
    }

    private func block(_ data: [UInt8]) { data.withUnsafeBytes { writeBlock($0) } }

    private func writeBlock(_ data: UnsafeRawBufferPointer) {
        let ms = UInt32(clamping: Int(((clock() - (startedAt ?? clock())) * 1000).rounded()))
        write(FBSEncoder.block(data, ms: ms))
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
        }
    }
}
