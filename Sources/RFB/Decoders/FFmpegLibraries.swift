import CAVCodec

/// FFmpeg, opened on the first H.264 rect rather than at start (CAVCodec's loader): a session
/// without H.264 never maps libavcodec and the libraries only it needs.
enum FFmpegLibraries {
    /// Opens them once per process; a missing library or symbol is an error on the rect, and
    /// from then on H.264 is no longer offered (`unavailable`).
    static func load(for rect: Rect) throws {
        let why = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buf -> String? in
            guard let p = buf.baseAddress else { return "no memory" }
            return cav_load(p, 256) == 0 ? nil : String(cString: p)
        }
        if let why {
            throw ProtocolError("H.264 rect \(rect): FFmpeg could not be loaded (\(why)); install libavcodec59, "
                                + "libavutil57 and libswscale6, or leave h264 out of --encodings")
        }
    }

    /// A load was tried and failed.
    static var unavailable: Bool { cav_load_failed() != 0 }
}
