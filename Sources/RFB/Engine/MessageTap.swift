/// Receives the server's messages as parsed (decrypted), from a message boundary on: a
/// session recording. Called on the engine's thread, inside `feed`/`resume`.
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
        tapArmed = true
    }

    public func stopTap() {
        tap = nil
        tapFrom = nil
        tapArmed = false
    }

    /// At a message boundary (`r` at the message's first byte): an armed tap starts here.
    func tapBoundary(_ r: ByteReader) {
        guard tapArmed, let tap else { return }
        tapArmed = false
        tapFrom = stats.bytes + r.pos
        tap.tapStarted(width: framebuffer?.width ?? 0, height: framebuffer?.height ?? 0,
                       name: desktopName, format: converter.format)
    }

    /// Before `consumed` bytes at the front of the input are dropped: the part at or after the
    /// tap's start goes to it.
    func tapConsumed(_ base: UnsafeRawPointer, _ consumed: Int) {
        guard let from = tapFrom, let tap, consumed > 0 else { return }
        let skip = max(0, from - stats.bytes)
        guard skip < consumed else { return }
        tap.tapped(UnsafeRawBufferPointer(start: base + skip, count: consumed - skip))
    }
}
