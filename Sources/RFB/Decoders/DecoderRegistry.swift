/// The decoders this build has, by encoding number. One instance each per connection,
/// so stream state (zlib) lives as long as the connection.
func makeDecoders(probe: LibraryProbe? = nil) -> [Int32: RectDecoder] {
    [
        Encoding.raw: RawDecoder(),
        Encoding.copyRect: CopyRectDecoder(),
        Encoding.rre: RREDecoder(compact: false),
        Encoding.coRRE: RREDecoder(compact: true),
        Encoding.hextile: HextileDecoder(),
        Encoding.zlib: ZlibDecoder(probe: probe),
        Encoding.tight: TightDecoder(probe: probe),
        Encoding.tightPNG: TightDecoder(probe: probe, png: true),
        Encoding.jpeg: JPEGRectDecoder(probe: probe),
        Encoding.zrle: ZRLEDecoder(probe: probe),
        Encoding.h264: H264Decoder(probe: probe),
    ]
}
