/// The server's messages after ServerInit (TigerVNC's CMsgReader): message framing, update and
/// rect headers, pseudo-encoding payloads, and each rect handed to its encoding's decoder. It
/// owns where it is in the stream, the pixel format rects are in, the connection's decoders and
/// what was decoded lossily; what a message changes beyond that is the engine's (its server
/// parameters, flow control, clipboard, framebuffer, events), which it is given each step.
///
/// Resumable: a unit is parsed whole or not at all (`NeedMoreData` rolls the reader back to its
/// start), except a rect's pixels, which decoders commit as they go. Session thread.
final class MessageReader {
    enum State {
        case messageType
        case updateHeader
        case rectHeader
        case rect(Rect, Int32, resume: Bool)
        case skipping(Int)             // oversized cut text, audio we turned off
    }

    // `@exclusivity(unchecked)`: read or written for every rect (see ClientEngine).
    @exclusivity(unchecked) private(set) var state = State.messageType
    @exclusivity(unchecked) private var rectsLeft = 0
    @exclusivity(unchecked) private var rectsInUpdate = 0
    /// The pixel format the server's rects are in now (`FlowControl` switches it), with its
    /// colour map.
    @exclusivity(unchecked) var converter: PixelConverter
    /// Made as their encodings first appear (`decoder(_:)`).
    @exclusivity(unchecked) private var decoders: [Int32: RectDecoder] = [:]
    /// The decoder of the rect being decoded (`state` .rect), looked up once per rect.
    @exclusivity(unchecked) private var rectDecoder: RectDecoder?
    /// The real encoding of the last rect decoded (nil before the first).
    @exclusivity(unchecked) private(set) var lastEncoding: Int32?
    /// Where rects were decoded while a JPEG quality was asked for, and a lossless refresh's
    /// progress.
    @exclusivity(unchecked) var lossy = LossyArea()
    /// Told of the time spent inside the codec libraries; given to each decoder.
    private let probe: LibraryProbe?
    /// Worker threads' jobs (`decodeThreads` above 1); given to decoders that can hand rects over.
    let jobs: DecodeManager?
    /// Given to decoders whose rects may run long.
    private let cancellation: DecodeCancellation

    init(format: PixelFormat, probe: LibraryProbe?, jobs: DecodeManager?, cancellation: DecodeCancellation) {
        converter = PixelConverter(format: format)
        self.probe = probe
        self.jobs = jobs
        self.cancellation = cancellation
    }

    /// Between two messages (nothing of one buffered or decoding).
    var atMessageBoundary: Bool {
        if case .messageType = state { return true }
        return false
    }

    /// One unit. Returns false when there is nothing more to do without new bytes.
    func step(_ r: inout ByteReader, _ c: ClientEngine) throws -> Bool {
        switch state {
        case .messageType:
            c.messageBoundary(at: r.pos)
            try message(&r, c)
        case .updateHeader:
            try r.require(3)
            r.pos += 1
            let n = Int(try r.u16())
            c.report(.updateHeader, from: r.pos - 4, to: r.pos)
            rectsLeft = n == 0xffff ? Int.max : n   // 0xFFFF: count unknown, ended by LastRect
            rectsInUpdate = 0
            c.events.append(.updateBegan)
            if c.pipelineRequests && c.flow.shouldPipeline(c) { c.requestUpdate() }
            if rectsLeft == 0 { try endUpdate(lastRect: false, at: r.pos, c) } else { state = .rectHeader }
        case .rectHeader:
            try r.require(12)
            let header = r.pos
            let x = Int(try r.u16()), y = Int(try r.u16()), w = Int(try r.u16()), h = Int(try r.u16())
            let enc = try r.s32()
            try beginRect(Rect(x: x, y: y, w: w, h: h), enc, header: header, &r, c)
        case .rect(let rect, let enc, let resume):
            guard let fb = c.framebuffer, let dec = rectDecoder else { throw ProtocolError("internal: no decoder for \(enc)") }
            let pf = converter
            if dec.locksFramebufferItself {
                try dec.decode(rect: rect, reader: &r, fb: fb, pf: pf, resume: resume)
                if !dec.deferredLastRect { fb.addDamage(rect) }
            } else {
                // the lock is held for this rect only: the front end reads between rects
                try fb.lock.withWriterLock {
                    try dec.decode(rect: rect, reader: &r, fb: fb, pf: pf, resume: resume)
                    if !dec.deferredLastRect { fb.addDamage(rect) }
                }
            }
            c.stats.pixels += rect.area
            c.addWork(rect.area + dec.extraWork)
            lossy.decoded(rect, lossy: c.settings.jpegQuality != nil)
            try finishRect(at: r.pos, c)
        case .skipping(let left):
            let n = min(left, r.remaining)
            if n == 0 { return false }
            r.pos += n
            state = left - n == 0 ? .messageType : .skipping(left - n)
        }
        return true
    }

    /// A rect ran short of bytes: it goes on from what its decoder committed.
    func rectInterrupted() {
        if case .rect(let rect, let enc, _) = state { state = .rect(rect, enc, resume: true) }
    }

    // MARK: messages

    private func message(_ r: inout ByteReader, _ c: ClientEngine) throws {
        let start = r.pos
        let type = try r.u8()
        // anything but an update (a colour map, a fence, cut text) waits for rects on workers
        if type != 0, let o = jobs, o.hasPending { try o.drain() }
        switch type {
        case 0:
            state = .updateHeader
            return   // its header is the next unit
        case 1: // SetColourMapEntries
            try r.require(5)
            r.pos += 1
            let first = Int(try r.u16()), n = Int(try r.u16())
            try r.require(n * 6)
            let size = converter.colourMapSize
            if size > 0 {
                guard first + n <= size else {
                    throw ProtocolError("SetColourMapEntries writes entries \(first)..<\(first + n), past the \(size)-entry colour map")
                }
                for i in 0..<n {
                    let red = try r.u16(), green = try r.u16(), blue = try r.u16()
                    converter.setColourMapEntry(first + i, r: red, g: green, b: blue)
                }
                c.events.append(.colourMapChanged)
            } else {
                r.pos += n * 6   // true colour: a colour map means nothing to us
            }
        case 2:
            c.events.append(.bell)
        case 3:
            try serverCutText(&r, c)
        case 150:
            c.flow.endOfContinuousUpdates(c)
        case 248:
            try c.flow.fence(&r, c)
        case 250:
            c.events.append(try PseudoRects.xvp(&r))
        case 255:
            switch try QEMUServerMessage.parse(&r, asked: c.writer.audio.asked, on: c.writer.audio.on) {
            case .audioEnded?: c.events.append(.audioEnded)
            case .audioBegan?: c.events.append(.audioBegan)
            case .audioData(let d)?: c.events.append(.audioData(d))
            case .skip(let n)?: state = .skipping(n)
            case nil: break
            }
        default:
            throw ProtocolError("unknown server message type \(type)")
        }
        // the whole message, a part still to skip included
        var end = r.pos
        if case .skipping(let n) = state { end += n }
        c.report(.message(type: type), from: start, to: end)
    }

    /// ServerCutText: classic Latin-1, or with a negative length the Extended Clipboard.
    private func serverCutText(_ r: inout ByteReader, _ c: ClientEngine) throws {
        try r.require(7)
        r.pos += 3
        let signed = try r.s32()
        if signed < 0 && c.settings.wantExtendedClipboard {
            // Extended Clipboard: |length| bytes of flags and payload
            let n = -Int(signed)
            if n > ExtendedClipboard.maxMessageLength(limit: c.clipboard.limit) {
                c.events.append(.cutTextSkipped(length: n))
                state = .skipping(n)
                return
            }
            let p = try r.bytes(n)
            if try c.clipboard.receive(UnsafeRawBufferPointer(start: p, count: n), out: &c.writer.output, events: &c.events) {
                c.server.supportsExtendedClipboard = true
            }
            return
        }
        let len = Int(UInt32(bitPattern: signed))
        if len > min(Limits.maxCutTextLength, c.clipboard.limit) {
            // Skip as it arrives: never buffer what a length field claims.
            c.events.append(.cutTextSkipped(length: len))
            state = .skipping(len)
            return
        }
        let p = try r.bytes(len)
        // ISO 8859-1: each byte is the Unicode scalar of the same value.
        var s = String.UnicodeScalarView()
        for i in 0..<len { s.append(Unicode.Scalar(p[i])) }
        c.events.append(.cutText(String(s)))
    }

    // MARK: rects

    private func beginRect(_ rect: Rect, _ enc: Int32, header: Int, _ r: inout ByteReader, _ c: ClientEngine) throws {
        guard let fb = c.framebuffer else { throw ProtocolError("internal: update before ServerInit") }
        c.stats.rects += 1
        // rects on workers land first when this one could see or overwrite them: a CopyRect
        // (its source), an overlap, a pseudo-encoding (a resize frees the pixels; events keep
        // their order); not LastRect (an update end is no barrier: the drain at the end of
        // each parse call shows every finished update whole)
        if let o = jobs, o.hasPending, try enc == Encoding.copyRect ? copyTouchesPending(rect, o, r) : ((decoderFactories[enc] == nil && enc != Encoding.lastRect) || o.overlapsPending(rect)) {
            try o.drain()
        }
        if try pseudoRect(rect, enc, &r, c) {
            c.report(.pseudoRect(encoding: enc), from: header, to: r.pos)
            if enc == Encoding.lastRect { try endUpdate(lastRect: true, at: r.pos, c) } else { try finishRect(at: r.pos, c) }
            return
        }
        // more of the update follows the job held back: a worker takes it now
        jobs?.release()
        guard let dec = try decoder(enc, c) else {
            throw ProtocolError("server sent a rectangle in \(Encoding.name(enc)), which this viewer does not know")
        }
        rectDecoder = dec
        // the last resize of a run is made now, before pixels are drawn
        try c.applyResize()
        guard fb.contains(rect) else {
            throw ProtocolError("\(Encoding.name(enc)) rectangle \(rect) extends past the \(fb.width)x\(fb.height) framebuffer")
        }
        lastEncoding = enc
        state = .rect(rect, enc, resume: false)
    }

    /// A pseudo-encoding's rect, parsed whole (every byte required before anything changes);
    /// false for a real encoding.
    private func pseudoRect(_ rect: Rect, _ enc: Int32, _ r: inout ByteReader, _ c: ClientEngine) throws -> Bool {
        switch enc {
        case Encoding.lastRect:
            break
        case Encoding.desktopSize:
            try c.checkSize(rect.w, rect.h, what: "DesktopSize")
            c.noteResize(width: rect.w, height: rect.h)
            c.events.append(.resized(width: rect.w, height: rect.h))
        case Encoding.extendedDesktopSize:
            try extendedDesktopSize(rect, &r, c)
        case Encoding.desktopName:
            let len = Int(try r.u32())
            guard len <= Limits.maxDesktopNameLength else {
                throw ProtocolError("DesktopName is \(len) bytes long (limit \(Limits.maxDesktopNameLength))")
            }
            c.server.name = ServerText.printable(try r.string(len))
            c.events.append(.desktopName(c.server.name))
        case Encoding.cursor:
            c.events.append(.cursor(try PseudoRects.richCursor(rect, &r, converter)))
        case Encoding.xCursor:
            c.events.append(.cursor(try PseudoRects.xCursor(rect, &r)))
        case Encoding.cursorWithAlpha:
            c.events.append(.cursor(try PseudoRects.cursorWithAlpha(rect, &r)))
        case Encoding.vmwareCursor:
            c.events.append(.cursor(try PseudoRects.vmwareCursor(rect, &r, converter)))
        case Encoding.extendedMouseButtons:
            // an empty rect: the server's acknowledgement
            if c.settings.wantExtendedMouseButtons && !c.server.supportsExtendedMouseButtons {
                c.server.supportsExtendedMouseButtons = true
                c.events.append(.extendedMouseButtonsSupported)
            }
        case Encoding.qemuExtendedKeyEvent:
            // an empty rect: the server's acknowledgement
            if c.settings.wantQEMUKeyEvents && !c.server.supportsQEMUKeyEvents {
                c.server.supportsQEMUKeyEvents = true
                c.events.append(.qemuKeyEventsSupported)
            }
        case Encoding.ledState:
            c.events.append(.lockLights(LockLights(bits: UInt32(try r.u8()))))
        case Encoding.vmwareLEDState:
            c.events.append(.lockLights(LockLights(bits: try r.u32())))
        case Encoding.qemuPointerMotionChange:
            // x: 0 relative, anything else absolute
            c.events.append(.pointerMode(relative: rect.x == 0))
        case Encoding.qemuAudio:
            // an empty rect: QEMU's acknowledgement, sent when the machine has an audio device
            break
        case Encoding.pointerPos, Encoding.vmwareCursorPosition:
            c.events.append(.pointerMoved(x: rect.x, y: rect.y))
        default:
            return false
        }
        switch enc {
        case Encoding.cursor, Encoding.xCursor, Encoding.cursorWithAlpha, Encoding.vmwareCursor:
            // each cursor is an image to convert and queue: counted like a rect's pixels, so a
            // stream of them lets the session thread look at its commands (and the window take them)
            c.addWork(rect.area)
        default:
            break
        }
        return true
    }

    /// ExtendedDesktopSize: the server's size and screens, or its answer to our request.
    private func extendedDesktopSize(_ rect: Rect, _ r: inout ByteReader, _ c: ClientEngine) throws {
        let (reason, status, screens) = try PseudoRects.extendedDesktopSize(rect, &r)
        c.server.supportsSetDesktopSize = true
        if !status.isSuccess {
            // A refused request: the rest describes nothing new and is ignored.
            c.events.append(.desktopSizeRequestResult(status: status, message: status.message))
            return
        }
        try c.checkSize(rect.w, rect.h, what: "ExtendedDesktopSize")
        let layout = ScreenLayout(width: rect.w, height: rect.h, screens: screens)
        if let problem = layout.problem() {
            throw ProtocolError("ExtendedDesktopSize layout \(problem)")
        }
        if rect.w != c.desktopBounds?.w || rect.h != c.desktopBounds?.h {
            c.noteResize(width: rect.w, height: rect.h)
            c.events.append(.resized(width: rect.w, height: rect.h))
        }
        c.server.screenLayout = layout
        c.events.append(.screenLayout(layout, reason: reason))
        if reason == .thisClient {
            c.events.append(.desktopSizeRequestResult(status: status, message: status.message))
        }
    }

    /// A CopyRect reads its source: it waits for rects in flight only when the source or the
    /// destination meets one (the source is peeked, not consumed: the rect parses as before).
    private func copyTouchesPending(_ rect: Rect, _ o: DecodeManager, _ r: ByteReader) throws -> Bool {
        // not buffered yet: wait for everything (asking for more bytes here would count the rect twice)
        guard r.remaining >= 4 else { return true }
        var peek = r
        let sx = Int(try peek.u16()), sy = Int(try peek.u16())
        return o.overlapsPending(rect) || o.overlapsPending(Rect(x: sx, y: sy, w: rect.w, h: rect.h))
    }

    /// The connection's decoder for `enc`, made at its first rect; nil when this build has none.
    /// Throws for an encoding decoded only where offered that this connection never offered
    /// (checked once: a decoder is made only after it was).
    private func decoder(_ enc: Int32, _ c: ClientEngine) throws -> RectDecoder? {
        if let d = decoders[enc] { return d }
        guard let make = decoderFactories[enc] else { return nil }
        if c.settings.refusesUnoffered && Encoding.decodedOnlyWhenOffered.contains(enc) && !c.writer.offeredEncodings.contains(enc) {
            throw ProtocolError("server sent a rectangle in \(Encoding.name(enc)), which this connection never offered (it is lossy, offered only with a quality or when named in the encodings)")
        }
        let d = make(probe)
        if let o = jobs, let w = d as? OffloadingDecoder { w.jobs = o }
        if let cd = d as? CancellableDecoder { cd.cancellation = cancellation }
        decoders[enc] = d
        return d
    }

    private func finishRect(at pos: Int, _ c: ClientEngine) throws {
        rectsInUpdate += 1
        if rectsLeft != Int.max { rectsLeft -= 1 }
        if rectsLeft == 0 { try endUpdate(lastRect: false, at: pos, c) } else { state = .rectHeader }
    }

    /// Rects still on workers land first: the front end, told the update ended, reads it whole,
    /// and a pixel-format or colour-map change after it never meets a rect in flight.
    private func endUpdate(lastRect: Bool, at pos: Int, _ c: ClientEngine) throws {
        if let o = jobs, o.hasPending { try o.drain() }
        c.report(.updateEnd(lastRect: lastRect), from: pos, to: pos)
        c.stats.updates += 1
        for d in decoders.values { d.updateEnded() }
        c.events.append(.updateEnded(rects: rectsInUpdate))
        state = .messageType
        c.flow.updateEnded(c)
    }
}

/// The bounds of the rects decoded while a JPEG quality was asked for (they may be lossy), and
/// a lossless refresh under way: its area, and the pixels of it decoded losslessly since (a
/// server may send it in pieces, between other updates).
struct LossyArea {
    var bounds: Rect?
    var refresh: Rect? { didSet { covered = 0 } }
    var covered = 0

    @inline(__always) mutating func decoded(_ rect: Rect, lossy: Bool) {
        if lossy { bounds = bounds.map { $0.union(rect) } ?? rect }
        else if let rr = refresh { covered += rect.intersection(rr).area }
    }
}
