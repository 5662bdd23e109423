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
