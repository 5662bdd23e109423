/// Server messages after ServerInit: updates' pseudo-encodings, colour map, bell, cut text.
extension ClientEngine {
    func checkSize(_ w: Int, _ h: Int, what: String) throws {
        let cap = min(settings.maxFramebufferPixels, Limits.maxFramebufferPixels)
        guard w <= Limits.maxFramebufferDimension, h <= Limits.maxFramebufferDimension, w * h <= cap else {
            let pixels = cap >= 1 << 20 ? "\(cap >> 20) Mpixel" : "\(cap)-pixel"
            throw ProtocolError("\(what) asks for a \(w)x\(h) framebuffer, over the \(Limits.maxFramebufferDimension)x\(Limits.maxFramebufferDimension) and \(pixels) limits")
        }
    }


    func parseMessage(_ r: inout ByteReader) throws {
        let type = try r.u8()
        // anything but an update (a colour map, a fence, cut text) waits for rects on workers
        if type != 0, let o = jobs, o.hasPending { try o.drain() }
        switch type {
        case 0:
            state = .updateHeader
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
                events.append(.colourMapChanged)
            } else {
                r.pos += n * 6   // true colour: a colour map means nothing to us
            }
        case 2:
            events.append(.bell)
        case 3: // ServerCutText
            try r.require(7)
            r.pos += 3
            let signed = try r.s32()
            if signed < 0 && settings.wantExtendedClipboard {
                // Extended Clipboard: |length| bytes of flags and payload
                let n = -Int(signed)
                if n > ExtendedClipboard.maxMessageLength(limit: clipboard.limit) {
                    events.append(.cutTextSkipped(length: n))
                    state = .skipping(n)
                    return
                }
                let p = try r.bytes(n)
                try clipboard.receive(UnsafeRawBufferPointer(start: p, count: n), out: &output, events: &events)
                return
            }
            let len = Int(UInt32(bitPattern: signed))
            if len > min(Limits.maxCutTextLength, clipboard.limit) {
                // Skip as it arrives: never buffer what a length field claims.
                events.append(.cutTextSkipped(length: len))
                state = .skipping(len)
                return
            }
            let p = try r.bytes(len)
            // ISO 8859-1: each byte is the Unicode scalar of the same value.
            var s = String.UnicodeScalarView()
            for i in 0..<len { s.append(Unicode.Scalar(p[i])) }
            events.append(.cutText(String(s)))
        case 150:
            parseEndOfContinuousUpdates()
        case 248:
            try parseFence(&r)
        case 250:
            try parseXvp(&r)
        case 255:
            try parseQEMUServerMessage(&r)
        default:
            throw ProtocolError("unknown server message type \(type)")
        }
    }

    func beginRect(_ rect: Rect, _ enc: Int32, _ r: inout ByteReader) throws {
        guard let fb = framebuffer else { throw ProtocolError("internal: update before ServerInit") }
        stats.rects += 1
        // rects on workers land first when this one could see or overwrite them: a CopyRect
        // (its source), an overlap, a pseudo-encoding (a resize frees the pixels; events keep
        // their order); not LastRect (an update end is no barrier: the drain at the end of
        // each parse call shows every finished update whole)
        if let o = jobs, o.hasPending, try enc == Encoding.copyRect ? copyTouchesPending(rect, o, r) : ((decoderFactories[enc] == nil && enc != Encoding.lastRect) || o.overlapsPending(rect)) {
            try o.drain()
        }
        switch enc {
        case Encoding.lastRect:
            tapServerLastRect = true
            try endUpdate()
        case Encoding.desktopSize:
            try checkSize(rect.w, rect.h, what: "DesktopSize")
            noteResize(width: rect.w, height: rect.h)
            events.append(.resized(width: rect.w, height: rect.h))
            try finishRect()
        case Encoding.extendedDesktopSize:
            try parseExtendedDesktopSize(rect, &r)
            try finishRect()
        case Encoding.desktopName:
            let len = Int(try r.u32())
            guard len <= Limits.maxDesktopNameLength else {
                throw ProtocolError("DesktopName is \(len) bytes long (limit \(Limits.maxDesktopNameLength))")
            }
            desktopName = ServerText.printable(try r.string(len))
            events.append(.desktopName(desktopName))
            try finishRect()
        case Encoding.cursor:
            try parseCursor(rect, &r)
            // each cursor is an image to convert and queue: counted like a rect's pixels, so a
            // stream of them lets the session thread look at its commands (and the window take them)
            addWork(rect.area)
            try finishRect()
        case Encoding.extendedMouseButtons:
            // an empty rect: the server's acknowledgement
            if settings.wantExtendedMouseButtons && !extendedMouseButtons {
                extendedMouseButtons = true
                events.append(.extendedMouseButtonsSupported)
            }
            try finishRect()
        case Encoding.qemuExtendedKeyEvent:
            // an empty rect: the server's acknowledgement
            if settings.wantQEMUKeyEvents && !qemuKeyEvents {
                qemuKeyEvents = true
                events.append(.qemuKeyEventsSupported)
            }
            try finishRect()
        default:
            if try beginMorePseudo(rect, enc, &r) { return }
            guard let dec = try decoder(enc) else {
                throw ProtocolError("server sent a rectangle in \(Encoding.name(enc)), which this viewer does not know")
            }
            rectDecoder = dec
            // the last resize of a run is made now, before pixels are drawn
            if pendingResize != nil { try applyResize() }
            guard fb.contains(rect) else {
                throw ProtocolError("\(Encoding.name(enc)) rectangle \(rect) extends past the \(fb.width)x\(fb.height) framebuffer")
            }
            lastEncoding = enc
            state = .rect(rect, enc, resume: false)
        }
    }

    /// ExtendedDesktopSize: x is the reason, y the status of a reply to us, w/h the framebuffer;
    /// then a screen count (u8), 3 padding bytes and 16 bytes per screen. All bytes are
    /// required before any state changes, so a drip-fed rect parses the same.
    func parseExtendedDesktopSize(_ rect: Rect, _ r: inout ByteReader) throws {
        guard let reason = DesktopSizeReason(rawValue: rect.x) else {
            throw ProtocolError("ExtendedDesktopSize gives reason \(rect.x); the protocol defines 0 (server), 1 (this client) and 2 (another client)")
        }
        try r.require(4)
        let n = Int(r.base[r.pos])
        guard n <= Limits.maxScreens else {
            throw ProtocolError("ExtendedDesktopSize lists \(n) screens, over the limit of \(Limits.maxScreens)")
        }
        try r.require(4 + 16 * n)
        r.pos += 4
        var screens: [Screen] = []
        screens.reserveCapacity(n)
        for _ in 0..<n {
            let id = try r.u32()
            let x = Int(try r.u16()), y = Int(try r.u16()), w = Int(try r.u16()), h = Int(try r.u16())
            let flags = try r.u32()
            screens.append(Screen(id: id, x: x, y: y, width: w, height: h, flags: flags))
        }
        supportsSetDesktopSize = true
        let status = reason == .thisClient ? DesktopSizeStatus(code: rect.y) : .ok
        if !status.isSuccess {
            // A refused request: the rest describes nothing new and is ignored.
            events.append(.desktopSizeRequestResult(status: status, message: status.message))
            return
        }
        try checkSize(rect.w, rect.h, what: "ExtendedDesktopSize")
        let layout = ScreenLayout(width: rect.w, height: rect.h, screens: screens)
        if let problem = layout.problem() {
            throw ProtocolError("ExtendedDesktopSize layout \(problem)")
        }
        if rect.w != desktopBounds?.w || rect.h != desktopBounds?.h {
            noteResize(width: rect.w, height: rect.h)
            events.append(.resized(width: rect.w, height: rect.h))
        }
        screenLayout = layout
        events.append(.screenLayout(layout, reason: reason))
        if reason == .thisClient {
            events.append(.desktopSizeRequestResult(status: status, message: status.message))
        }
    }

    func parseCursor(_ rect: Rect, _ r: inout ByteReader) throws {
        let w = rect.w, h = rect.h
        guard w <= Limits.maxCursorDimension, h <= Limits.maxCursorDimension else {
            throw ProtocolError("cursor of \(w)x\(h) is over the \(Limits.maxCursorDimension)x\(Limits.maxCursorDimension) limit")
        }
        let bpp = converter.bytesPerPixel
        let maskRow = (w + 7) / 8
        try r.require(w * h * bpp + maskRow * h)
        let pix = try r.bytes(w * h * bpp)
        let mask = try r.bytes(maskRow * h)
        var argb = [UInt32](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let visible = mask[y * maskRow + x / 8] & (0x80 >> UInt8(x % 8)) != 0
                if visible { argb[y * w + x] = 0xff00_0000 | converter.pixel(pix + (y * w + x) * bpp) }
            }
        }
        // A hotspot outside the image is clamped rather than trusted.
        let hx = min(rect.x, max(0, w - 1)), hy = min(rect.y, max(0, h - 1))
        events.append(.cursor(CursorImage(width: w, height: h, hotX: hx, hotY: hy, argb: argb)))
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

    func finishRect() throws {
        rectsInUpdate += 1
        if rectsLeft != Int.max { rectsLeft -= 1 }
        if rectsLeft == 0 { try endUpdate() } else { state = .rectHeader }
    }

    /// Rects still on workers land first: the front end, told the update ended, reads it whole,
    /// and a pixel-format or colour-map change after it never meets a rect in flight.
    func endUpdate() throws {
        if let o = jobs, o.hasPending { try o.drain() }
        // (a LastRect seen before the tap started must not count for the first update it taps)
        if tapFrom != nil && !tapServerLastRect { tapNeedsLastRect = true }
        tapServerLastRect = false
        stats.updates += 1
        for d in decoders.values { d.updateEnded() }
        events.append(.updateEnded(rects: rectsInUpdate))
        state = .messageType
        flowAtUpdateEnd()
        if !pipelineRequests && !flow.continuousUpdates { requestUpdate() }
    }

}
