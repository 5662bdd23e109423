import CTurboJPEG

/// A JPEG's frame size, checked against its rect before TurboJPEG writes into the framebuffer.
///
/// TurboJPEG's own header call (tjDecompressHeader3) reads the whole header, tables included,
/// which tjDecompress2 then reads again, for every rect. Walking the marker segments to the first
/// SOF is enough for the size; streams the walk does not follow plainly (fill or stray bytes,
/// a scan before the frame, a truncated segment) go to TurboJPEG's header call as before.
/// Either way tjDecompress2 never writes past the width and height it is given (it scales a
/// larger image down), so the walk decides only which error a bad stream gets.
enum JPEGFrameSize {
    /// The width and height in the first SOFn segment, as libjpeg reads them, or nil.
    static func walk(_ p: UnsafePointer<UInt8>, count n: Int) -> (w: Int, h: Int)? {
        guard n >= 2, p[0] == 0xff, p[1] == 0xd8 else { return nil }
        var i = 2
        // each step: 0xff, a marker code, a 16-bit length counting itself, the segment
        while i + 4 <= n, p[i] == 0xff {
            let m = p[i + 1]
            let len = Int(p[i + 2]) << 8 | Int(p[i + 3])
            switch m {
            case 0xc0...0xcf where m != 0xc4 && m != 0xc8 && m != 0xcc:
                // length, precision, height, width
                guard len >= 8, i + 9 <= n else { return nil }
                return (Int(p[i + 7]) << 8 | Int(p[i + 8]), Int(p[i + 5]) << 8 | Int(p[i + 6]))
            case 0xc4, 0xdb, 0xdd, 0xe0...0xef, 0xfe:
                // tables, restart interval, application data, comments
                guard len >= 2 else { return nil }
                i += 2 + len
            default:
                // fill bytes, standalone markers, a scan before the frame: TurboJPEG decides
                return nil
            }
        }
        return nil
    }

    /// The frame size from the walk, else from TurboJPEG's header call; TurboJPEG's message
    /// when the header is bad.
    static func of(_ p: UnsafePointer<UInt8>, count n: Int, handle: tjhandle) -> Result<(w: Int, h: Int), JPEGHeaderError> {
        if let s = walk(p, count: n) { return .success(s) }
        var w: Int32 = 0, h: Int32 = 0, sub: Int32 = 0, cs: Int32 = 0
        guard tjDecompressHeader3(handle, p, UInt(n), &w, &h, &sub, &cs) == 0 else {
            return .failure(JPEGHeaderError(message: tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"))
        }
        return .success((Int(w), Int(h)))
    }
}

struct JPEGHeaderError: Error { let message: String }
