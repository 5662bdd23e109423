/// The engine's decoders, one per encoding and connection (the table is `decoderFactories`).
extension ClientEngine {
    /// The connection's decoder for `enc`, made at its first rect; nil when this build has none.
    func decoder(_ enc: Int32) -> RectDecoder? {
        if let d = decoders[enc] { return d }
        guard let make = decoderFactories[enc] else { return nil }
        let d = make(probe)
        if let o = offload {
            switch d {
            case let t as TightDecoder: t.offload = o
            case let z as ZRLEDecoder: z.offload = o
            case let h as HextileDecoder: h.offload = o
            case let r as RREDecoder: r.offload = o
            default: break
            }
        }
        decoders[enc] = d
        return d
    }
}
