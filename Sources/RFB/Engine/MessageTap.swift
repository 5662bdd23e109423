/// Receives the server's messages as parsed (decrypted), from a message boundary on: a
/// session recording. Called on the engine's thread, inside `feed`/`resume`.
///
/// What reaches the tap is the stream the reference tools (rfbreplay.py, libvncclient,
/// TigerVNC) can read back: clipboard messages are left out (a recording keeps the picture,
/// not what was copied), and so are pseudo-encoding rects those tools do not know (capability
/// acknowledgements, lock lights, QEMU's pointer mode, alpha and VMware cursors). So that the
/// rect counts stay right, every update is written as "count unknown" ended by a LastRect.
public protocol MessageTap: AnyObject {
    /// The tap begins at a message boundary; the framebuffer is this size then and the
    /// messages that follow are in `format`.
    func tapStarted(width: Int, height: Int, name: String, format: PixelFormat)
    /// Bytes of server messages, in order.
    func tapped(_ bytes: UnsafeRawBufferPointer)
}

/// A change to the tapped stream: absolute bytes [from, to) replaced by `with`.
struct TapEdit {
    var from: Int, to: Int, with: [UInt8]
}

extension ClientEngine {
    /// Pseudo-encodings kept in a recording: the ones the reference tools parse.
    static let recordedPseudo: Set<Int32> = [Encoding.cursor, Encoding.xCursor, Encoding.desktopSize,
                                             Encoding.extendedDesktopSize, Encoding.lastRect, Encoding.pointerPos,
                                             Encoding.desktopName]
    static let lastRectBytes: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x20]

    /// Starts passing server messages to `tap` from the next message boundary (at once between
    /// messages, after ServerInit when still in the handshake). A tap already set is replaced.
    public func startTap(_ tap: MessageTap) {
        self.tap = tap
        tapFrom = nil
        tapEdits.removeAll()
        tapNeedsLastRect = false
        tapServerLastRect = false
        tapArmed = true
    }

    public func stopTap() {
        tap = nil
        tapFrom = nil
        tapEdits.removeAll()
        tapArmed = false
    }

    /// At a message boundary (`r` at the message's first byte): an armed tap starts here, and
    /// a clipboard message is marked to be left out.
    func tapBoundary(_ r: ByteReader) {
        if tapArmed, let tap {
            tapArmed = false
            tapFrom = stats.bytes + r.pos
            tap.tapStarted(width: desktopBounds?.w ?? 0, height: desktopBounds?.h ?? 0,
                           name: desktopName, format: converter.format)
        }
        // ServerCutText: 3, padding, then a length that is negative for the Extended Clipboard;
        // with fewer than 8 bytes in, the message is parsed (and this asked) again later
        // QEMU audio (255): not picture, and the reference tools do not parse it
        if tapFrom != nil, r.remaining >= 4, r.base[r.pos] == 255 {
            let op = Int(r.base[r.pos + 2]) << 8 | Int(r.base[r.pos + 3])
            guard op == 2 else { addTapEdit(TapEdit(from: stats.bytes + r.pos, to: stats.bytes + r.pos + 4, with: [])); return }
            guard r.remaining >= 8 else { return }
            let b = r.base + r.pos + 4
            let n = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
            addTapEdit(TapEdit(from: stats.bytes + r.pos, to: stats.bytes + r.pos + 8 + n, with: []))
            return
        }
        // EndOfContinuousUpdates and Fence: flow control between this client and the server
        if tapFrom != nil, r.remaining >= 1, r.base[r.pos] == 150 {
            addTapEdit(TapEdit(from: stats.bytes + r.pos, to: stats.bytes + r.pos + 1, with: []))
            return
        }
        if tapFrom != nil, r.remaining >= 9, r.base[r.pos] == 248 {
            let n = Int(r.base[r.pos + 8])
            addTapEdit(TapEdit(from: stats.bytes + r.pos, to: stats.bytes + r.pos + 9 + n, with: []))
            return
        }
        guard tapFrom != nil, r.remaining >= 8, r.base[r.pos] == 3 else { return }
        let b = r.base + r.pos + 4
        let len = Int32(bitPattern: UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3]))
        addTapEdit(TapEdit(from: stats.bytes + r.pos, to: stats.bytes + r.pos + 8 + Int(len.magnitude), with: []))
    }

    /// The update header just parsed (`r` after its count): the count becomes "unknown". The
    /// type byte went with the step before (perhaps an earlier feed); padding and count are
    /// consumed together, so the edit is applied whole.
    func tapUpdateHeader(_ r: ByteReader) {
        let end = stats.bytes + r.pos
        addTapEdit(TapEdit(from: end - 3, to: end, with: [0, 0xff, 0xff]))
    }

    /// A rect fully parsed from `headerAt` to `r.pos`: one the reference tools do not know is left out.
    func tapRectParsed(headerAt start: Int, _ enc: Int32, _ r: ByteReader) {
        guard decoderFactories[enc] == nil, !ClientEngine.recordedPseudo.contains(enc) else { return }
        if case .rect = state { return }   // not parsed to its end (never for these encodings)
        addTapEdit(TapEdit(from: stats.bytes + start, to: stats.bytes + r.pos, with: []))
    }

    /// After a step: an update that ended without the server's LastRect gets ours.
    func tapAfterStep(_ r: ByteReader) {
        guard tapNeedsLastRect else { return }
        tapNeedsLastRect = false
        let at = stats.bytes + r.pos
        addTapEdit(TapEdit(from: at, to: at, with: ClientEngine.lastRectBytes))
    }

    private func addTapEdit(_ e: TapEdit) {
        // a unit parsed again after running short must not add its edit twice
        if let last = tapEdits.last, last.from == e.from, last.to == e.to { return }
        tapEdits.append(e)
    }

    /// Before `consumed` bytes at the front of the input are dropped: the part at or after the
    /// tap's start goes to it, with the edits applied.
    func tapConsumed(_ base: UnsafeRawPointer, _ consumed: Int) {
        guard let from = tapFrom, let tap, consumed > 0 else { return }
        let origin = stats.bytes
        var at = max(from, origin)
        let end = origin + consumed
        func pass(_ a: Int, _ b: Int) {
            if b > a { tap.tapped(UnsafeRawBufferPointer(start: base + (a - origin), count: b - a)) }
        }
        while at < end || (tapEdits.first.map { $0.from == end && $0.to == end } ?? false) {
            guard let e = tapEdits.first, e.from <= end else { pass(at, end); return }
            pass(at, e.from)
            if e.from >= at && !e.with.isEmpty {
                e.with.withUnsafeBytes { tap.tapped($0) }
                tapEdits[0].with = []   // written once, even if its range spans feeds
            }
            at = max(at, min(end, e.to))
            if e.to <= end { tapEdits.removeFirst() } else { return }
        }
    }
}
