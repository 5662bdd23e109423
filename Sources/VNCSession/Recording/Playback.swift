import Foundation
import RFB

/// Where a playback is in its recording: media milliseconds as a function of the wall clock,
/// with pause and speed. Any thread. `now` is injectable (tests use a fake clock).
public final class PlaybackClock: @unchecked Sendable {
    public static let speeds: [Double] = [0.25, 0.5, 1, 2, 4, 8]
    private let lock = NSLock()
    private let now: () -> Double
    /// Media time at `anchor` (wall seconds); it advances at `speed` unless paused.
    private var anchorMedia = 0.0, anchor: Double
    private var _speed = 1.0, _paused = false

    public init(now: @escaping () -> Double = monotonicSeconds) {
        self.now = now
        anchor = now()
    }

    /// Media milliseconds now.
    public var position: Double { lock.withLock { media(at: now()) } }
    public var speed: Double { lock.withLock { _speed } }
    public var paused: Bool { lock.withLock { _paused } }

    private func media(at t: Double) -> Double {
        _paused ? anchorMedia : anchorMedia + (t - anchor) * 1000 * _speed
    }

    /// Every change re-anchors, so the position never jumps.
    private func reanchor(_ change: () -> Void) {
        lock.withLock {
            let t = now()
            anchorMedia = media(at: t); anchor = t
            change()
        }
    }

    public func seek(toMs ms: Double) { reanchor { anchorMedia = max(0, ms) } }
    public func setPaused(_ p: Bool) { reanchor { _paused = p } }
    public func setSpeed(_ s: Double) { reanchor { _speed = min(8, max(0.25, s)) } }

    /// Wall seconds until media time reaches `ms` (infinity while paused; 0 if already past).
    public func secondsUntil(_ ms: Double) -> Double {
        lock.withLock {
            let pos = media(at: now())
            if pos >= ms { return 0 }
            return _paused ? .infinity : (ms - pos) / 1000 / _speed
        }
    }
}

/// A recording served as if it were a server, paced by a `PlaybackClock`: every block whose
/// time has come is readable, the rest waits. Opened anew on each seek, it hands over at once
/// the blocks up to the clock's position, so the picture after a seek is exactly what a
/// straight decode reaches at that time. What the session sends is dropped.
public final class PlaybackTransport: Transport, @unchecked Sendable {
    public let peer: String
    private let recording: RecordedStream
    private let clock: PlaybackClock
    private let lock = NSLock()
    private var next = 0          // next block index
    private var offset = 0        // stream offset of what is not yet read
    private var interrupted = false
    /// Never written: `fd` exists for callers that poll it; waits go through `waitReadable`.
    private let idle: (read: Int32, write: Int32)

    public init(_ recording: RecordedStream, clock: PlaybackClock, name: String) {
        self.recording = recording
        self.clock = clock
        peer = name
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        idle = (fds[0], fds[1])
    }
    deinit { _ = Glibc.close(idle.read); _ = Glibc.close(idle.write) }

    public var fd: Int32 { idle.read }

    /// Blocks due now: up to the clock's position.
    private func dueEnd() -> Int {
        let n = recording.blocks(upTo: UInt32(clamping: Int(clock.position.rounded())))
        return n == 0 ? 0 : recording.blockEnds[n - 1]
    }

    public func send(_ bytes: [UInt8]) throws {
        if lock.withLock({ interrupted }) { throw TransportError("playback stopped") }
    }
    public func trySend(_ bytes: [UInt8]) -> Bool { true }

    public func recv(into buf: UnsafeMutableRawPointer, capacity: Int) throws -> Int {
        let end = dueEnd()
        return try lock.withLock {
            if interrupted { throw TransportError("playback stopped") }
            let n = min(capacity, end - offset)
            guard n > 0 else { return 0 }
            recording.stream.withUnsafeBytes { s in
                if let base = s.baseAddress { buf.copyMemory(from: base + offset, byteCount: n) }
            }
            offset += n
            return n
        }
    }

    public func close() { interrupt() }
    public func interrupt() { lock.withLock { interrupted = true } }
    public func interruptReads() { interrupt() }

    public func waitReadable(timeout: Double, orWake wake: Int32) -> (readable: Bool, woken: Bool) {
        let (stopped, read) = lock.withLock { (interrupted, offset) }
        if stopped || dueEnd() > read { return (true, false) }
        // sleep until the next block is due (or the timeout, or a wake-up)
        let nextTime = recording.blocks(upTo: UInt32(clamping: Int(clock.position.rounded())))
        var wait = timeout
        if nextTime < recording.blockTimes.count {
            wait = min(timeout, clock.secondsUntil(Double(recording.blockTimes[nextTime])))
        }
        var p = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        let ms = Int32(max(0, min(wait, 3600)) * 1000)
        let rc = wake >= 0 ? poll(&p, 1, ms) : { usleep(UInt32(ms) * 1000); return 0 }()
        let woken = rc > 0 && p.revents != 0
        return (lock.withLock { interrupted } || dueEnd() > lock.withLock { offset }, woken)
    }

    /// Everything has been read.
    public var atEnd: Bool { lock.withLock { offset >= recording.stream.count } }
}
