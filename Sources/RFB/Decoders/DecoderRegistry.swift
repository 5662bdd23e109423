/// The decoders this build has, by encoding number. A connection makes each at the first rect
/// of its encoding and keeps it, so stream state (zlib) lives as long as the connection; a
/// server uses one or two of them, and several hold zlib streams and buffers.
let decoderFactories: [Int32: @Sendable (LibraryProbe?) -> RectDecoder] = [
    Encoding.raw: { _ in RawDecoder() },
    Encoding.copyRect: { _ in CopyRectDecoder() },
    Encoding.rre: { _ in RREDecoder(compact: false) },
    Encoding.coRRE: { _ in RREDecoder(compact: true) },
    Encoding.hextile: { _ in HextileDecoder() },
    Encoding.zlib: { ZlibDecoder(probe: $0) },
    Encoding.tight: { TightDecoder(probe: $0) },
    Encoding.tightPNG: { TightDecoder(probe: $0, png: true) },
    Encoding.jpeg: { JPEGRectDecoder(probe: $0) },
    Encoding.zrle: { ZRLEDecoder(probe: $0) },
    Encoding.h264: { H264Decoder(probe: $0) },
]

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
