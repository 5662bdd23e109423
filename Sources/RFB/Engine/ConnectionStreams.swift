/// The connection's bytes in both directions, through the security channel once one runs
/// (TigerVNC's CConnection streams, with the security type's TLS or AES layer pushed on them):
/// what arrives is decrypted into `input` for the parser, what the writer wrote is encrypted
/// into `rawOutput` for the socket. Session thread, with the engine.
final class ConnectionStreams {
    /// Plaintext received and not yet parsed.
    let input = InputBuffer()
    /// Bytes in their on-the-wire form, ready for the socket.
    private(set) var rawOutput: [UInt8] = []
    /// TLS or RSA-AES once the security handshake set it up; nil for plain RFB.
    private(set) var channel: SecureChannel?
    /// Set by `startChannel` in the middle of a parse: the bytes after the current unit are raw.
    @exclusivity(unchecked) private(set) var channelStarting = false
    /// Set by `stopChannel`: after the current unit, bytes are plain again.
    @exclusivity(unchecked) private(set) var channelStopping = false
    /// Scratch space for raw bytes when a channel decrypts into `input`.
    private var rawScratch: [UInt8] = []

    // MARK: receiving

    /// Raw bytes from the socket: decrypted into `input` when a channel runs.
    func ingest(_ bytes: UnsafeRawPointer, count: Int) throws {
        if let ch = channel {
            try ch.ingest(bytes, count)
            try ch.drainPlain(into: input)
        } else {
            input.append(bytes, count)
        }
    }

    /// Lets a transport receive straight into the buffer: `body` gets room for at least `n`
    /// bytes and returns how many it wrote; `fed` then parses them. Through a channel, raw
    /// bytes land in a scratch buffer first and `fed` gets them to ingest.
    func receive(atLeast n: Int, _ body: (UnsafeMutableRawPointer, Int) throws -> Int,
                 fed: (_ raw: UnsafeRawPointer?, _ count: Int) throws -> Void) throws -> Int {
        if channel != nil {
            if rawScratch.count < n { rawScratch = [UInt8](repeating: 0, count: n) }
            let got = try rawScratch.withUnsafeMutableBytes { b -> Int in
                guard let p = b.baseAddress else { return 0 }
                return try body(p, b.count)
            }
            if got > 0 { try rawScratch.withUnsafeBytes { b in if let p = b.baseAddress { try fed(p, got) } } }
            return got
        }
        let tail = input.reserve(n)
        let got = try body(tail, input.capacity - input.end)
        if got > 0 { input.end += got; try fed(nil, got) }
        return got
    }

    /// After the parser used `consumed` bytes at the front of `input`: what the security
    /// handshake changed about the stream takes effect. Returns true when the parser should go
    /// on (plain bytes are back, or the channel decrypted the next message); `nextMessage`
    /// says whether it may take one now (RSA-AES "ne" decrypts one message at a time).
    func unitParsed(nextMessage: Bool) throws -> Bool {
        if channelStopping, let ch = channel as? EAXChannel {
            // Whatever raw bytes the channel holds were never encrypted: back to the parser.
            channelStopping = false
            channel = nil
            let left = ch.takeLeftoverRaw()
            left.withUnsafeBytes { if let b = $0.baseAddress { input.append(b, left.count) } }
            return true
        }
        if !channelStarting, let ch = channel as? EAXChannel, ch.oneMessageAtATime, ch.holdsMessage, nextMessage {
            // the next message, now that the parser has used the last (see oneMessageAtATime)
            try ch.drainPlain(into: input)
            return true
        }
        guard channelStarting, let ch = channel else { return false }
        // What followed the unit that started the channel was already encrypted.
        channelStarting = false
        let raw = Array(UnsafeBufferPointer(start: input.storage + input.start, count: input.count))
        input.consume(input.count)
        try raw.withUnsafeBytes { if let b = $0.baseAddress { try ch.ingest(b, raw.count) } }
        try ch.drainPlain(into: input)
        return true
    }

    /// The current unit started or stopped the channel: the parser stops after it.
    var switching: Bool { channelStarting || channelStopping }

    /// The server ended the encrypted stream (TLS close_notify).
    var peerClosed: Bool { channel?.peerClosed ?? false }

    // MARK: sending

    /// What `writer` holds goes out: as it is in clear, else through the channel (a secret
    /// zeroed once encrypted). False when the channel broke (a broken TLS state).
    func flush(_ writer: MessageWriter) -> Bool {
        guard let ch = channel else {
            // in clear: what goes on the wire is handed over as it is (VncAuth's response, Plain)
            writer.holdsSecret = false
            if rawOutput.isEmpty { swap(&rawOutput, &writer.output) } else { rawOutput += writer.output; writer.output.removeAll(keepingCapacity: true) }
            return true
        }
        var ok = true
        do { try ch.writePlain(writer.output) } catch { ok = false }
        if writer.holdsSecret {
            VNCAuth.wipe(&writer.output)
            writer.holdsSecret = false
        }
        writer.output.removeAll(keepingCapacity: true)
        rawOutput += ch.takeRaw()
        return ok
    }

    /// The raw bytes, handed over, not copied: clearing a buffer the caller now shares would
    /// allocate anew.
    func takeRaw() -> [UInt8] {
        var out: [UInt8] = []
        swap(&out, &rawOutput)
        return out
    }

    var hasRaw: Bool { !rawOutput.isEmpty || channel?.hasRaw == true }

    /// From the next unit on, bytes in both directions go through `ch` (`writer` flushed first:
    /// what is queued was meant to go out before encryption starts).
    func startChannel(_ ch: SecureChannel, after writer: MessageWriter) -> Bool {
        let ok = flush(writer)
        channel = ch
        channelStarting = true
        return ok
    }

    /// After the current unit, bytes are plain again (the last encrypted message goes first).
    func stopChannel(after writer: MessageWriter) -> Bool {
        let ok = flush(writer)
        channelStopping = true
        return ok
    }

    /// Ends an encrypted session in order (TLS close_notify into the raw output).
    func closeChannel(after writer: MessageWriter) {
        guard let ch = channel else { return }
        if !writer.output.isEmpty { _ = flush(writer) }
        ch.close()
        rawOutput += ch.takeRaw()
    }
}
