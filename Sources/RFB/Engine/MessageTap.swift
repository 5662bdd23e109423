/// Receives the server's messages as parsed (decrypted), from a message boundary on: a
/// session recording. Called on the engine's thread, inside `feed`/`resume`. Clipboard
/// messages (ServerCutText, classic and extended) are left out: a recording keeps the picture,
/// not what was copied, and the reference tools that replay recordings do not parse the
/// Extended Clipboard.
public protocol MessageTap: AnyObject {
    /// The tap begins at a message boundary; the framebuffer is this size then and the
    /// messages that follow are in `format`.
    func tapStarted(width: Int, height: Int, name: String, format: PixelFormat)
    /// Bytes of server messages, in order, each exactly once.
    func tapped(_ bytes: UnsafeRawBufferPointer)
}

extension ClientEngine {
    /// Starts passing server messages to `tap` from the next message boundary (at once between
    /// messages, after ServerInit when still in the handshake). A tap already set is replaced.
    public func startTap(_ tap: MessageTap) {
        self.tap = tap
        tapFrom = nil
        tapSkips.removeAll()
        tapArmed = true
    }

    public func stopTap() {
        tap = nil
        tapFrom = nil
        tapSkips.removeAll()
        tapArmed = false
    }

    /// At a message boundary (`r` at the message's first byte): an armed tap starts here, and
    /// a clipboard message is marked to be left out.
    func tapBoundary(_ r: ByteReader) {
        if tapArmed, let tap {
            tapArmed = false
            tapFrom = stats.bytes + r.pos
            tap.tapStarted(width: framebuffer?.width ?? 0, height: framebuffer?.height ?? 0,
                           name: desktopName, format: converter.format)
        }
        // ServerCutText: 3, padding, then a length that is negative for the Extended Clipboard;
        // with fewer than 8 bytes in, the message is parsed (and this asked) again later
        guard tapFrom != nil, r.remaining >= 8, r.base[r.pos] == 3 else { return }
        let b = r.base + r.pos + 4
        let len = Int32(bitPattern: UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3]))
        let from = stats.bytes + r.pos
        if tapSkips.last?.from != from { tapSkips.append((from, from + 8 + Int(len.magnitude))) }
    }

    /// Before `consumed` bytes at the front of the input are dropped: the part at or after the
    /// tap's start goes to it.
    func tapConsumed(_ base: UnsafeRawPointer, _ consumed: Int) {
        guard let from = tapFrom, let tap, consumed > 0 else { return }
        var at = max(from, stats.bytes)
        let end = stats.bytes + consumed
        while at < end {
            // the next range left out, if it starts before the end of what was consumed
            if let s = tapSkips.first, s.from < end {
                if s.from > at { tap.tapped(UnsafeRawBufferPointer(start: base + (at - stats.bytes), count: s.from - at)) }
                at = max(at, min(end, s.to))
                if s.to <= end { tapSkips.removeFirst() } else { return }
            } else {
                tap.tapped(UnsafeRawBufferPointer(start: base + (at - stats.bytes), count: end - at))
                return
            }
        }
    }

    /// A rect header just parsed (its bytes are still in the input, about to be tapped): a
    /// capability acknowledgement (QEMU Extended Key Event, ExtendedMouseButtons) carries
    /// nothing a replay needs, and rfbreplay.py and libvncclient stop at encodings they do not
    /// know, so the recorded copy gets a Raw rect of 0x0 in its place: same length, no effect.
    func tapRectParsed(_ header: UnsafePointer<UInt8>, _ enc: Int32) {
        guard enc == Encoding.qemuExtendedKeyEvent || enc == Encoding.extendedMouseButtons else { return }
        UnsafeMutablePointer(mutating: header + 4).update(repeating: 0, count: 8)
    }
}
