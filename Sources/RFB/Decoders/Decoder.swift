import Synchronization

/// One decoder per encoding, behind one interface (as TigerVNC's `Decoder`).
///
/// Called on the session thread only (or the benchmark's thread); never touches the UI.
/// The engine has already checked that `rect` lies inside the framebuffer.
///
/// Resumable parsing: when the buffered bytes run out the decoder lets `NeedMoreData` escape;
/// the engine rewinds the reader to `reader.committed` and calls again, with `resume: true`, once
/// more bytes have arrived. A decoder may `commit()` after each finished unit (a row, a tile, a
/// batch of subrects) and keep its own progress; it must not change lasting state (zlib streams,
/// carried colours) for a unit it has not fully buffered. Writes to the framebuffer are
/// idempotent, so redoing an uncommitted unit is harmless.
public protocol RectDecoder: AnyObject {
    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws
    /// Connection (or recording) restarted: drop stream state.
    func reset()
    /// The last `decode` handed the rect to a worker: its damage is added when it is retired.
    var deferredLastRect: Bool { get }
    /// The decoder does its heavy work (a codec library's own decode) outside the framebuffer
    /// lock and takes `fb.lock.withWriterLock` only around its writes to the framebuffer, so
    /// the front end is never held back by a long decode. The engine then calls it unlocked.
    var locksFramebufferItself: Bool { get }
    /// Pixels of work the last `decode` did beyond its rect's area (H.264: each picture after
    /// the first), counted against the engine's work budget like the area itself.
    var extraWork: Int { get }
    /// The update the last rects belonged to has ended (per-update limits start again).
    func updateEnded()
}

extension RectDecoder {
    public func reset() {}
    public var deferredLastRect: Bool { false }
    public var locksFramebufferItself: Bool { false }
    public var extraWork: Int { 0 }
    public func updateEnded() {}
}

/// Set from any thread (a session's `stop()`) to end a long decode between its units: a rect
/// of many H.264 pictures then fails with "stopped" instead of running to its end.
public final class DecodeCancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public func cancel() { flag.store(true, ordering: .releasing) }
    public var isCancelled: Bool { flag.load(ordering: .acquiring) }
}

/// A decoder whose rects may run long (many pictures): the engine gives it the connection's
/// cancellation when it makes it, and the decoder looks at it between units.
protocol CancellableDecoder: RectDecoder {
    var cancellation: DecodeCancellation? { get set }
}

/// A decoder that can hand big rects to worker threads: the engine gives it the connection's
/// `DecodeManager` when it makes it, and the decoder hands it self-contained jobs (`RectWork`),
/// so a new one joins by adopting this, not by a change to the engine or the manager.
protocol OffloadingDecoder: RectDecoder {
    var jobs: DecodeManager? { get set }
}

/// Raw: rows of pixels. Commits per row so a large rect never needs to be buffered whole.
final class RawDecoder: RectDecoder {
    private var rowsDone = 0

    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws {
        if !resume { rowsDone = 0 }
        let rowBytes = rect.w * pf.bytesPerPixel
        if rowBytes == 0 { return }
        while rowsDone < rect.h {
            // as many whole rows as are buffered, converted straight into the framebuffer
            let n = min(rect.h - rowsDone, reader.remaining / rowBytes)
            if n == 0 { throw NeedMoreData() }
            let src = try reader.bytes(n * rowBytes)
            for i in 0..<n {
                pf.convert(src + i * rowBytes, to: fb.row(rect.y + rowsDone + i) + rect.x, count: rect.w)
            }
            rowsDone += n
            reader.commit()
        }
    }
}

/// CopyRect: a source position inside the framebuffer.
final class CopyRectDecoder: RectDecoder {
    func decode(rect: Rect, reader: inout ByteReader, fb: Framebuffer, pf: PixelConverter, resume: Bool) throws {
        try reader.require(4)
        let sx = Int(try reader.u16()), sy = Int(try reader.u16())
        guard fb.contains(Rect(x: sx, y: sy, w: rect.w, h: rect.h)) else {
            throw ProtocolError("CopyRect source \(rect.w)x\(rect.h)+\(sx)+\(sy) lies outside the \(fb.width)x\(fb.height) framebuffer")
        }
        fb.copy(from: sx, sy, to: rect)
    }
}
