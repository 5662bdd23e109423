@_spi(Fuzzing) import RFB

/// Open H.264 (encoding 50) through the engine, in the decoder targets' input format
/// (DecoderTargets.swift; each rect body is u32 length, u32 flags, Annex B data) on a
/// connection that offered it: libavcodec's parser and decoder behind our checks, contexts
/// and their eviction, the caps per rect and per update, the copy into the framebuffer.
let h264Target = FuzzTarget(name: "dec-h264",
                            summary: "Open H.264: libavcodec's parser and decoder on libx264 streams, contexts, the caps",
                            maxLength: 32768, run: { runDecoder(Encoding.h264, $0) }, seeds: { H264Seeds.inputs })

/// A libx264 stream (H264Streams.swift) as access units.
struct H264Stream: Sendable {
    let width: Int, height: Int
    let units: [[UInt8]]

    /// `units` in hex; anything else in the strings (line breaks, spaces) is skipped.
    init(width: Int, height: Int, units: [String]) {
        self.width = width
        self.height = height
        self.units = units.map { text in
            var out: [UInt8] = []
            var high: UInt8?
            for c in text.utf8 {
                let v: UInt8
                switch c {
                case 0x30...0x39: v = c - 0x30
                case 0x61...0x66: v = c - 0x61 + 10
                default: continue
                }
                if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
            }
            return out
        }
    }

    func joined(_ r: Range<Int>) -> [UInt8] { r.flatMap { units[$0] } }
}

/// The streams cut into rects as servers send them.
enum H264Seeds {
    static func body(_ data: [UInt8], flags: UInt32 = 0) -> [UInt8] { be32(data.count) + be32(Int(flags)) + data }

    static var inputs: [[UInt8]] {
        typealias R = (Int, Int, Int, Int, [UInt8])
        var out: [[UInt8]] = []
        // whole, and in pieces of 1 and 7 bytes (each compared with the whole run)
        func add(_ fb: (Int, Int), _ rects: [R]) {
            for flags: UInt8 in [0, 1 << 3, 3 << 3] { out.append(decoderInput(flags: flags, fb: fb, rects)) }
        }
        func pictureARect(_ s: H264Stream, x: Int = 0, y: Int = 0) -> [R] {
            s.units.indices.map { (x, y, s.width, s.height, body(s.units[$0], flags: $0 == 0 ? 2 : 0)) }   // 2: reset all contexts
        }
        let all = [H264Streams.twoSlices, H264Streams.fourSlices, H264Streams.cropped, H264Streams.keyint,
                   H264Streams.still, H264Streams.chroma444, H264Streams.baseline]
        for s in all { add((s.width, s.height), pictureARect(s)) }
        // several pictures a rect: two, then the rest
        for s in [H264Streams.twoSlices, H264Streams.keyint, H264Streams.still] {
            add((s.width, s.height), [(0, 0, s.width, s.height, body(s.joined(0..<2))),
                                      (0, 0, s.width, s.height, body(s.joined(2..<s.units.count)))])
        }
        // frames larger than their rect (50x30 in 48x16), at an offset
        let c = H264Streams.cropped
        add((64, 40), c.units.map { (8, 4, 48, 16, body($0)) })
        // two contexts side by side, interleaved; then one reset alone
        let a = H264Streams.twoSlices, b = H264Streams.keyint
        var pair: [R] = []
        for i in 0..<min(a.units.count, b.units.count) {
            pair += [(0, 0, a.width, a.height, body(a.units[i])), (a.width, 0, b.width, b.height, body(b.units[i]))]
        }
        pair.append((0, 0, a.width, a.height, body([], flags: 1)))   // 1: reset this rect's context
        add((a.width + b.width, max(a.height, b.height)), pair)
        return out
    }
}
