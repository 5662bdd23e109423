/// The server's keyboard lock lights (LED State, VMware LED State).
public struct LockLights: Equatable, Sendable {
    public var scroll: Bool, num: Bool, caps: Bool
    public init(scroll: Bool, num: Bool, caps: Bool) { self.scroll = scroll; self.num = num; self.caps = caps }
    /// Bit 0 Scroll, bit 1 Num, bit 2 Caps Lock (both encodings).
    init(bits: UInt32) { self.init(scroll: bits & 1 != 0, num: bits & 2 != 0, caps: bits & 4 != 0) }
}

/// xvp (power control) codes a client sends.
public enum XvpAction: UInt8, Sendable, CaseIterable {
    case shutdown = 2, reboot = 3, reset = 4
}

/// Cursor shapes other than RichCursor, lock lights, pointer mode and position: pseudo-encoding
/// rects whose payload, if any, is fully buffered before anything changes (drip-fed parses
/// the same).
extension ClientEngine {
    /// Returns false for an encoding this file does not handle.
    func beginMorePseudo(_ rect: Rect, _ enc: Int32, _ r: inout ByteReader) throws -> Bool {
        switch enc {
        case Encoding.xCursor:
            try parseXCursor(rect, &r)
            addWork(rect.area)   // an image made from a few bytes: work like a rect's pixels
        case Encoding.cursorWithAlpha:
            try parseCursorWithAlpha(rect, &r)
            addWork(rect.area)
        case Encoding.vmwareCursor:
            try parseVMwareCursor(rect, &r)
            addWork(rect.area)
        case Encoding.ledState:
            events.append(.lockLights(LockLights(bits: UInt32(try r.u8()))))
        case Encoding.vmwareLEDState:
            events.append(.lockLights(LockLights(bits: try r.u32())))
        case Encoding.qemuPointerMotionChange:
            // x: 0 relative, anything else absolute
            events.append(.pointerMode(relative: rect.x == 0))
        case Encoding.qemuAudio:
            // an empty rect: QEMU's acknowledgement, sent when the machine has an audio device
            break
        case Encoding.pointerPos, Encoding.vmwareCursorPosition:
            events.append(.pointerMoved(x: rect.x, y: rect.y))
        default:
            return false
        }
        try finishRect()
        return true
    }

    private func checkCursor(_ w: Int, _ h: Int) throws {
        guard w <= Limits.maxCursorDimension, h <= Limits.maxCursorDimension else {
            throw ProtocolError("cursor of \(w)x\(h) is over the \(Limits.maxCursorDimension)x\(Limits.maxCursorDimension) limit")
        }
    }

    private func cursor(_ rect: Rect, _ argb: [UInt32]) -> EngineEvent {
        // a hotspot outside the image is clamped rather than trusted
        .cursor(CursorImage(width: rect.w, height: rect.h, hotX: min(rect.x, max(0, rect.w - 1)),
                            hotY: min(rect.y, max(0, rect.h - 1)), argb: argb))
    }

    /// XCursor: two RGB colours, then a 1-bit image (1 = foreground) and a 1-bit mask.
    private func parseXCursor(_ rect: Rect, _ r: inout ByteReader) throws {
        let w = rect.w, h = rect.h
        try checkCursor(w, h)
        guard w > 0, h > 0 else { events.append(cursor(rect, [])); return }
        let row = (w + 7) / 8
        try r.require(6 + 2 * row * h)
        let c = try r.bytes(6)
        let fg = 0xff00_0000 | UInt32(c[0]) << 16 | UInt32(c[1]) << 8 | UInt32(c[2])
        let bg = 0xff00_0000 | UInt32(c[3]) << 16 | UInt32(c[4]) << 8 | UInt32(c[5])
        let bits = try r.bytes(row * h), mask = try r.bytes(row * h)
        var argb = [UInt32](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let bit = UInt8(0x80) >> UInt8(x % 8), i = y * row + x / 8
                if mask[i] & bit != 0 { argb[y * w + x] = bits[i] & bit != 0 ? fg : bg }
            }
        }
        events.append(cursor(rect, argb))
    }

    /// Cursor With Alpha: an encoding, then the image in it as 32-bit RGBA with premultiplied
    /// alpha (bytes R, G, B, A). Servers send it Raw; another encoding is refused clearly.
    private func parseCursorWithAlpha(_ rect: Rect, _ r: inout ByteReader) throws {
        let w = rect.w, h = rect.h
        try checkCursor(w, h)
        try r.require(4)
        let enc = try r.s32()
        guard enc == Encoding.raw else {
            throw ProtocolError("cursor with alpha in \(Encoding.name(enc)): only Raw is supported for cursor images")
        }
        let p = try r.bytes(w * h * 4)
        events.append(cursor(rect, CursorImage.unpremultiplied(rgba: p, count: w * h)))
    }

    /// VMware cursor: type 0 is an AND mask and an XOR image in the pixel format, type 1 is
    /// RGBA with alpha.
    private func parseVMwareCursor(_ rect: Rect, _ r: inout ByteReader) throws {
        let w = rect.w, h = rect.h
        try checkCursor(w, h)
        try r.require(2)
        let type = r.base[r.pos]
        switch type {
        case 0:
            let bpp = converter.bytesPerPixel
            try r.require(2 + 2 * w * h * bpp)
            r.pos += 2
            let and = try r.bytes(w * h * bpp), xor = try r.bytes(w * h * bpp)
            var argb = [UInt32](repeating: 0, count: w * h)
            for i in 0..<(w * h) {
                // AND 0: the XOR pixel is drawn; AND set: transparent (XOR over the screen is
                // not drawable as a cursor image: shown as black where XOR is non-zero)
                let a = converter.pixel(and + i * bpp), x = converter.pixel(xor + i * bpp)
                if a & 0xff_ffff == 0 { argb[i] = 0xff00_0000 | x } else if x & 0xff_ffff != 0 { argb[i] = 0xff00_0000 }
            }
            events.append(cursor(rect, argb))
        case 1:
            try r.require(2 + w * h * 4)
            r.pos += 2
            let p = try r.bytes(w * h * 4)
            events.append(cursor(rect, CursorImage.unpremultiplied(rgba: p, count: w * h)))
        default:
            throw ProtocolError("VMware cursor of type \(type): only 0 (classic) and 1 (alpha) exist")
        }
    }

    /// Server message 250 (xvp): padding, version, code (0 failed, 1 ready).
    func parseXvp(_ r: inout ByteReader) throws {
        try r.require(3)
        r.pos += 1
        let version = try r.u8(), code = try r.u8()
        switch code {
        case 1: events.append(.powerControl(available: version >= 1))
        case 0: events.append(.powerControlFailed)
        default: throw ProtocolError("xvp message with code \(code); servers send 0 (failed) or 1 (ready)")
        }
    }

    /// Asks the server to shut down, reboot or reset the machine (xvp version 1).
    public func sendPowerAction(_ a: XvpAction) {
        guard phase == .normal else { return }
        output += [250, 0, 1, a.rawValue]
    }

    /// QEMU's relative pointer mode: motion as a delta from 0x7FFF on each axis (what QEMU
    /// reads back when the pointer-motion-change pseudo-encoding is in use and the guest's
    /// mouse is relative).
    public func sendRelativePointer(dx: Int, dy: Int, buttons: UInt16) {
        let x = max(0, min(0xffff, 0x7fff + dx)), y = max(0, min(0xffff, 0x7fff + dy))
        sendPointer(x: x, y: y, buttons: buttons)
    }
}

extension CursorImage {
    /// RGBA bytes with premultiplied alpha to straight 0xAARRGGBB, as SDL cursors take.
    static func unpremultiplied(rgba p: UnsafePointer<UInt8>, count n: Int) -> [UInt32] {
        var out = [UInt32](repeating: 0, count: n)
        for i in 0..<n {
            let a = UInt32(p[4 * i + 3])
            guard a > 0 else { continue }
            func c(_ v: UInt8) -> UInt32 { min(255, (UInt32(v) * 255 + a / 2) / a) }
            out[i] = a << 24 | c(p[4 * i]) << 16 | c(p[4 * i + 1]) << 8 | c(p[4 * i + 2])
        }
        return out
    }
}
