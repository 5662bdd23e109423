import RFB

/// What of the server's message stream a recording keeps: the stream the reference tools
/// (rfbreplay.py, libvncclient, TigerVNC) can read back. Clipboard messages are left out (a
/// recording keeps the picture, not what was copied), and so are flow control (fences,
/// EndOfContinuousUpdates), QEMU's audio and the pseudo-encoding rects those tools do not know
/// (capability acknowledgements, lock lights, QEMU's pointer mode, alpha and VMware cursors).
/// So that the rect counts stay right, every update is written as "count unknown" ended by a
/// LastRect. Fed by a `RecordingObserver`'s calls, on the engine's thread; `kept` gets the
/// bytes to write, in order.
public final class RecordingFilter {
    /// Pseudo-encodings kept: the ones the reference tools parse.
    static let keptPseudo: Set<Int32> = [Encoding.cursor, Encoding.xCursor, Encoding.desktopSize,
                                         Encoding.extendedDesktopSize, Encoding.lastRect, Encoding.pointerPos,
                                         Encoding.desktopName]
    /// Server messages left out: ServerCutText, EndOfContinuousUpdates, Fence, QEMU.
    static let droppedMessages: Set<UInt8> = [3, 150, 248, 255]
    static let lastRectBytes: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x20]

    /// Stream bytes `from..<to` replaced by `with` (nothing: left out).
    private struct Edit {
        var from: Int, to: Int, with: [UInt8]
    }

    private let kept: (UnsafeRawBufferPointer) -> Void
    /// Where the recording starts in the stream; nil before it does.
    private var start: Int?
    /// Changes to the stream not yet passed, in stream order.
    private var edits: [Edit] = []

    public init(kept: @escaping (UnsafeRawBufferPointer) -> Void) { self.kept = kept }

    /// The recording starts at `offset` (a new connection's stream starts anew).
    public func start(at offset: Int) {
        start = offset
        edits.removeAll()
    }

    /// A unit at its boundary (`RecordingObserver.parsed`).
    public func parsed(_ unit: ServerUnit, from: Int, to: Int) {
        guard start != nil else { return }
        switch unit {
        case .message(let type):
            if RecordingFilter.droppedMessages.contains(type) { add(Edit(from: from, to: to, with: [])) }
        case .updateHeader:
            // padding and count: the count becomes "unknown"
            add(Edit(from: from + 1, to: to, with: [0, 0xff, 0xff]))
        case .pseudoRect(let enc):
            if !RecordingFilter.keptPseudo.contains(enc) { add(Edit(from: from, to: to, with: [])) }
        case .updateEnd(let lastRect):
            if !lastRect { add(Edit(from: from, to: from, with: RecordingFilter.lastRectBytes)) }
        }
    }

    private func add(_ e: Edit) {
        // a unit reported twice (parsed again after running short) changes the stream once
        if let last = edits.last, last.from == e.from, last.to == e.to { return }
        edits.append(e)
    }

    /// Stream bytes from `origin` on (`RecordingObserver.consumed`): the part at or after the
    /// start goes to `kept`, with the edits applied.
    public func consumed(_ bytes: UnsafeRawBufferPointer, at origin: Int) {
        guard let from = start, let base = bytes.baseAddress, bytes.count > 0 else { return }
        var at = max(from, origin)
        let end = origin + bytes.count
        func pass(_ a: Int, _ b: Int) {
            if b > a { kept(UnsafeRawBufferPointer(start: base + (a - origin), count: b - a)) }
        }
        while at < end || (edits.first.map { $0.from == end && $0.to == end } ?? false) {
            guard let e = edits.first, e.from <= end else { pass(at, end); return }
            pass(at, e.from)
            if e.from >= at && !e.with.isEmpty {
                e.with.withUnsafeBytes { kept($0) }
                edits[0].with = []   // written once, even if its range spans feeds
            }
            at = max(at, min(end, e.to))
            if e.to <= end { edits.removeFirst() } else { return }
        }
    }
}
