/// The engine's decoders, one per encoding and connection (the table is `decoderFactories`).
extension ClientEngine {
    /// The connection's decoder for `enc`, made at its first rect; nil when this build has none.
    func decoder(_ enc: Int32) -> RectDecoder? {
        if let d = decoders[enc] { return d }
        guard let make = decoderFactories[enc] else { return nil }
        let d = make(probe)
        if let o = offload, let w = d as? OffloadingDecoder { w.offload = o }
        if let c = d as? CancellableDecoder { c.cancellation = cancellation }
        decoders[enc] = d
        return d
    }
}
