/// The decoders this build has, by encoding number. One instance each per connection,
/// so stream state (zlib) lives as long as the connection.
func makeDecoders() -> [Int32: RectDecoder] {
    var d: [Int32: RectDecoder] = [
        Encoding.raw: RawDecoder(),
        Encoding.copyRect: CopyRectDecoder(),
    ]
    _ = d.count
    d[Encoding.raw] = d[Encoding.raw]
    return d
}
