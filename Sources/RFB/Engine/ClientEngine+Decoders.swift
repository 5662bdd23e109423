/// The engine's decoders, one per encoding and connection (the table is `decoderFactories`).
extension ClientEngine {
    /// The connection's decoder for `enc`, made at its first rect; nil when this build has none.
    /// Throws for an encoding decoded only where offered that this connection never offered
    /// (checked once: a decoder is made only after it was).
    func decoder(_ enc: Int32) throws -> RectDecoder? {
        if let d = decoders[enc] { return d }
        guard let make = decoderFactories[enc] else { return nil }
        if settings.refusesUnoffered && Encoding.decodedOnlyWhenOffered.contains(enc) && !offeredEncodings.contains(enc) {
            throw ProtocolError("server sent a rectangle in \(Encoding.name(enc)), which this connection never offered (it is lossy, offered only with a quality or when named in the encodings)")
        }
        let d = make(probe)
        if let o = jobs, let w = d as? OffloadingDecoder { w.jobs = o }
        if let c = d as? CancellableDecoder { c.cancellation = cancellation }
        decoders[enc] = d
        return d
    }
}
