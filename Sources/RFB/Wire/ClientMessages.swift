/// Client-to-server messages. Every padding byte is zero.
public enum ClientMessage {
    public static func setPixelFormat(_ pf: PixelFormat) -> [UInt8] { [0, 0, 0, 0] + pf.wireBytes }

    public static func setEncodings(_ encs: [Int32]) -> [UInt8] {
        var b: [UInt8] = [2, 0, UInt8(encs.count >> 8 & 0xff), UInt8(encs.count & 0xff)]
        for e in encs { let u = UInt32(bitPattern: e); b += [UInt8(u >> 24), UInt8(u >> 16 & 0xff), UInt8(u >> 8 & 0xff), UInt8(u & 0xff)] }
        return b
    }

    public static func updateRequest(incremental: Bool, _ r: Rect) -> [UInt8] {
        [3, incremental ? 1 : 0] + u16(r.x) + u16(r.y) + u16(r.w) + u16(r.h)
    }

    public static func keyEvent(keysym: UInt32, down: Bool) -> [UInt8] {
        [4, down ? 1 : 0, 0, 0, UInt8(keysym >> 24), UInt8(keysym >> 16 & 0xff), UInt8(keysym >> 8 & 0xff), UInt8(keysym & 0xff)]
    }

    /// QEMU Extended Key Event: the keysym plus the key's XT scancode. `keycode` takes 0xE0-prefixed
    /// keys as 0xE0xx; on the wire they are QEMU's "qnum" form, 0x80 | low byte (Right Ctrl 0x9D).
    public static func qemuKeyEvent(keysym: UInt32, keycode: UInt32, down: Bool) -> [UInt8] {
        let qnum = (keycode & 0xff00) == 0xe000 && (keycode & 0xff) < 0x80 ? 0x80 | (keycode & 0x7f) : keycode
        return [255, 0, 0, down ? 1 : 0] + u32(Int(keysym)) + u32(Int(qnum))
    }

    /// `buttons`: bit n is button n+1 (1-3 left/middle/right, 4-7 wheel, 8-9 back/forward).
    /// Without ExtendedMouseButtons only buttons 1-8 fit the classic byte; with it, bit 7 marks an
    /// extra byte carrying buttons 8 and 9.
    public static func pointerEvent(x: Int, y: Int, buttons: UInt16, extended: Bool = false) -> [UInt8] {
        if extended && buttons > 0x7f {
            return [5, UInt8(buttons & 0x7f) | 0x80] + u16(x) + u16(y) + [UInt8(truncatingIfNeeded: buttons >> 7)]
        }
        return [5, UInt8(truncatingIfNeeded: buttons & 0xff)] + u16(x) + u16(y)
    }

    /// Classic ClientCutText carries ISO 8859-1.
    public static func clientCutText(latin1 bytes: [UInt8]) -> [UInt8] {
        [6, 0, 0, 0] + u32(bytes.count) + bytes
    }

    /// SetDesktopSize (251): the framebuffer size and screen layout we ask the server for.
    /// The caller checks the layout (at most 255 screens fit the count byte).
    public static func setDesktopSize(width: Int, height: Int, screens: [Screen]) -> [UInt8] {
        var b: [UInt8] = [251, 0] + u16(width) + u16(height) + [UInt8(clamping: screens.count), 0]
        for s in screens.prefix(255) {
            b += u32(Int(s.id)) + u16(s.x) + u16(s.y) + u16(s.width) + u16(s.height) + u32(Int(s.flags))
        }
        return b
    }

    /// EnableContinuousUpdates (150): the server pushes updates for `r` (or stops, and answers
    /// with EndOfContinuousUpdates).
    public static func enableContinuousUpdates(_ on: Bool, _ r: Rect) -> [UInt8] {
        [150, on ? 1 : 0] + u16(r.x) + u16(r.y) + u16(r.w) + u16(r.h)
    }

    /// Fence (248): flags and up to 64 bytes of payload (the caller keeps to that limit).
    public static func fence(flags: UInt32, payload: [UInt8]) -> [UInt8] {
        [248, 0, 0, 0] + u32(Int(flags)) + [UInt8(clamping: payload.count)] + payload.prefix(64)
    }

    static func u16(_ v: Int) -> [UInt8] { let c = UInt16(clamping: max(0, v)); return [UInt8(c >> 8), UInt8(c & 0xff)] }
    static func u32(_ v: Int) -> [UInt8] { let c = UInt32(clamping: max(0, v)); return [UInt8(c >> 24), UInt8(c >> 16 & 0xff), UInt8(c >> 8 & 0xff), UInt8(c & 0xff)] }
}
