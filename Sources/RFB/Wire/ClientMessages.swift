/// Client-to-server messages. Every padding byte is zero. Each is written in place, field by
/// field: built from two-byte arrays per field, an update request took nine allocations, and
/// the engine sends one per update (pointer events come as fast as the mouse moves). The
/// `into:` forms append to the engine's output without an array of their own.
public enum ClientMessage {
    public static func setPixelFormat(_ pf: PixelFormat) -> [UInt8] { [0, 0, 0, 0] + pf.wireBytes }

    public static func setEncodings(_ encs: [Int32]) -> [UInt8] {
        var b: [UInt8] = [2, 0]
        b.reserveCapacity(4 + 4 * encs.count)
        b.put16(encs.count)
        for e in encs { b.put32(UInt32(bitPattern: e)) }
        return b
    }

    public static func updateRequest(incremental: Bool, _ r: Rect, into b: inout [UInt8]) {
        b.append(3); b.append(incremental ? 1 : 0)
        b.put16(r.x); b.put16(r.y); b.put16(r.w); b.put16(r.h)
    }

    public static func updateRequest(incremental: Bool, _ r: Rect) -> [UInt8] {
        message(10) { updateRequest(incremental: incremental, r, into: &$0) }
    }

    public static func keyEvent(keysym: UInt32, down: Bool) -> [UInt8] {
        [4, down ? 1 : 0, 0, 0, UInt8(keysym >> 24), UInt8(keysym >> 16 & 0xff), UInt8(keysym >> 8 & 0xff), UInt8(keysym & 0xff)]
    }

    /// QEMU Extended Key Event: the keysym plus the key's XT scancode. `keycode` takes 0xE0-prefixed
    /// keys as 0xE0xx; on the wire they are QEMU's "qnum" form, 0x80 | low byte (Right Ctrl 0x9D).
    public static func qemuKeyEvent(keysym: UInt32, keycode: UInt32, down: Bool) -> [UInt8] {
        let qnum = (keycode & 0xff00) == 0xe000 && (keycode & 0xff) < 0x80 ? 0x80 | (keycode & 0x7f) : keycode
        return message(12) { b in
            b.append(255); b.append(0); b.append(0); b.append(down ? 1 : 0)
            b.put32(keysym); b.put32(qnum)
        }
    }

    /// `buttons`: bit n is button n+1 (1-3 left/middle/right, 4-7 wheel, 8-9 back/forward).
    /// Without ExtendedMouseButtons only buttons 1-8 fit the classic byte; with it, bit 7 marks an
    /// extra byte carrying buttons 8 and 9.
    public static func pointerEvent(x: Int, y: Int, buttons: UInt16, extended: Bool = false, into b: inout [UInt8]) {
        let more = extended && buttons > 0x7f
        b.append(5)
        b.append(more ? UInt8(buttons & 0x7f) | 0x80 : UInt8(truncatingIfNeeded: buttons & 0xff))
        b.put16(x); b.put16(y)
        if more { b.append(UInt8(truncatingIfNeeded: buttons >> 7)) }
    }

    public static func pointerEvent(x: Int, y: Int, buttons: UInt16, extended: Bool = false) -> [UInt8] {
        message(7) { pointerEvent(x: x, y: y, buttons: buttons, extended: extended, into: &$0) }
    }

    /// Classic ClientCutText carries ISO 8859-1.
    public static func clientCutText(latin1 bytes: [UInt8]) -> [UInt8] {
        message(8 + bytes.count) { b in
            b.append(6); b.append(0); b.append(0); b.append(0)
            b.put32(UInt32(clamping: bytes.count)); b += bytes
        }
    }

    /// SetDesktopSize (251): the framebuffer size and screen layout we ask the server for.
    /// The caller checks the layout (at most 255 screens fit the count byte).
    public static func setDesktopSize(width: Int, height: Int, screens: [Screen]) -> [UInt8] {
        message(8 + 16 * min(255, screens.count)) { b in
            b.append(251); b.append(0); b.put16(width); b.put16(height)
            b.append(UInt8(clamping: screens.count)); b.append(0)
            for s in screens.prefix(255) {
                b.put32(s.id); b.put16(s.x); b.put16(s.y); b.put16(s.width); b.put16(s.height); b.put32(s.flags)
            }
        }
    }

    /// EnableContinuousUpdates (150): the server pushes updates for `r` (or stops, and answers
    /// with EndOfContinuousUpdates).
    public static func enableContinuousUpdates(_ on: Bool, _ r: Rect) -> [UInt8] {
        message(10) { b in
            b.append(150); b.append(on ? 1 : 0)
            b.put16(r.x); b.put16(r.y); b.put16(r.w); b.put16(r.h)
        }
    }

    /// Fence (248): flags and up to 64 bytes of payload (the caller keeps to that limit).
    public static func fence(flags: UInt32, payload: [UInt8]) -> [UInt8] {
        message(9 + min(64, payload.count)) { b in
            b.append(248); b.append(0); b.append(0); b.append(0)
            b.put32(flags); b.append(UInt8(clamping: payload.count)); b += payload.prefix(64)
        }
    }

    /// An array with room for `count` bytes, written by `body`.
    @inline(__always) static func message(_ count: Int, _ body: (inout [UInt8]) -> Void) -> [UInt8] {
        var b: [UInt8] = []
        b.reserveCapacity(count)
        body(&b)
        return b
    }
}

extension Array where Element == UInt8 {
    /// A big-endian u16 field; out-of-range values clamp to 0...65535.
    @inline(__always) mutating func put16(_ v: Int) {
        let c = UInt16(clamping: Swift.max(0, v))
        append(UInt8(c >> 8)); append(UInt8(c & 0xff))
    }

    /// A big-endian u32 field.
    @inline(__always) mutating func put32(_ v: UInt32) {
        append(UInt8(v >> 24)); append(UInt8(v >> 16 & 0xff)); append(UInt8(v >> 8 & 0xff)); append(UInt8(v & 0xff))
    }
}
