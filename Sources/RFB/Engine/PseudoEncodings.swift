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

/// The payloads of pseudo-encoding rects and small server messages, parsed into values: each
/// requires every byte of its payload before it consumes any, so a drip-fed rect parses the
/// same. What the values change is the engine's to do (`MessageReader`).
enum PseudoRects {
    private static func checkCursor(_ w: Int, _ h: Int) throws {
        guard w <= Limits.maxCursorDimension, h <= Limits.maxCursorDimension else {
            throw ProtocolError("cursor of \(w)x\(h) is over the \(Limits.maxCursorDimension)x\(Limits.maxCursorDimension) limit")
        }
    }

    private static func cursor(_ rect: Rect, _ argb: [UInt32]) -> CursorImage {
        // a hotspot outside the image is clamped rather than trusted
        CursorImage(width: rect.w, height: rect.h, hotX: min(rect.x, max(0, rect.w - 1)),
                    hotY: min(rect.y, max(0, rect.h - 1)), argb: argb)
    }

    /// RichCursor: the image in the pixel format, then a 1-bit mask.
    static func richCursor(_ rect: Rect, _ r: inout ByteReader, _ pf: PixelConverter) throws -> CursorImage {
        let w = rect.w, h = rect.h
        try checkCursor(w, h)
        let bpp = pf.bytesPerPixel
        let maskRow = (w + 7) / 8
        try r.require(w * h * bpp + maskRow * h)
        let pix = try r.bytes(w * h * bpp)
        let mask = try r.bytes(maskRow * h)
        var argb = [UInt32](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let visible = mask[y * maskRow + x / 8] & (0x80 >> UInt8(x % 8)) != 0
                if visible { argb[y * w + x] = 0xff00_0000 | pf.pixel(pix + (y * w + x) * bpp) }
            }
        }
        return cursor(rect, argb)
    }

    /// XCursor: two RGB colours, then a 1-bit image (1 = foreground) and a 1-bit mask.
    static func xCursor(_ rect: Rect, _ r: inout ByteReader) throws -> CursorImage {
        let w = rect.w, h = rect.h
        try checkCursor(w, h)
        guard w > 0, h > 0 else { return cursor(rect, []) }
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
        return cursor(rect, argb)
    }

    /// Cursor With Alpha: an encoding, then the image in it as 32-bit RGBA with premultiplied
    /// alpha (bytes R, G, B, A). Servers send it Raw; another encoding is refused clearly.
    static func cursorWithAlpha(_ rect: Rect, _ r: inout ByteReader) throws -> CursorImage {
        let w = rect.w, h = rect.h
        try checkCursor(w, h)
        try r.require(4)
        let enc = try r.s32()
        guard enc == Encoding.raw else {
            throw ProtocolError("cursor with alpha in \(Encoding.name(enc)): only Raw is supported for cursor images")
        }
        let p = try r.bytes(w * h * 4)
        return cursor(rect, CursorImage.unpremultiplied(rgba: p, count: w * h))
    }

    /// VMware cursor: type 0 is an AND mask and an XOR image in the pixel format, type 1 is
    /// RGBA with alpha.
    static func vmwareCursor(_ rect: Rect, _ r: inout ByteReader, _ pf: PixelConverter) throws -> CursorImage {
        let w = rect.w, h = rect.h
        try checkCursor(w, h)
        try r.require(2)
        let type = r.base[r.pos]
        switch type {
        case 0:
            let bpp = pf.bytesPerPixel
            try r.require(2 + 2 * w * h * bpp)
            r.pos += 2
            let and = try r.bytes(w * h * bpp), xor = try r.bytes(w * h * bpp)
            var argb = [UInt32](repeating: 0, count: w * h)
            for i in 0..<(w * h) {
                // AND 0: the XOR pixel is drawn; AND set: transparent (XOR over the screen is
                // not drawable as a cursor image: shown as black where XOR is non-zero)
                let a = pf.pixel(and + i * bpp), x = pf.pixel(xor + i * bpp)
                if a & 0xff_ffff == 0 { argb[i] = 0xff00_0000 | x } else if x & 0xff_ffff != 0 { argb[i] = 0xff00_0000 }
            }
            return cursor(rect, argb)
        case 1:
            try r.require(2 + w * h * 4)
            r.pos += 2
            let p = try r.bytes(w * h * 4)
            return cursor(rect, CursorImage.unpremultiplied(rgba: p, count: w * h))
        default:
            throw ProtocolError("VMware cursor of type \(type): only 0 (classic) and 1 (alpha) exist")
        }
    }

    /// ExtendedDesktopSize's payload: x is the reason, y the status of a reply to us, w/h the
    /// framebuffer; then a screen count (u8), 3 padding bytes and 16 bytes per screen.
    static func extendedDesktopSize(_ rect: Rect, _ r: inout ByteReader) throws
        -> (reason: DesktopSizeReason, status: DesktopSizeStatus, screens: [Screen]) {
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
        return (reason, reason == .thisClient ? DesktopSizeStatus(code: rect.y) : .ok, screens)
    }

    /// Server message 250 (xvp), after its type: padding, version, code (0 failed, 1 ready).
    static func xvp(_ r: inout ByteReader) throws -> EngineEvent {
        try r.require(3)
        r.pos += 1
        let version = try r.u8(), code = try r.u8()
        switch code {
        case 1: return .powerControl(available: version >= 1)
        case 0: return .powerControlFailed
        default: throw ProtocolError("xvp message with code \(code); servers send 0 (failed) or 1 (ready)")
        }
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
