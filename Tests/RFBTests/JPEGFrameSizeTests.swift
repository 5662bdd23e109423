import CTurboJPEG
import XCTest
@testable import RFB

/// The marker walk that stands in for TurboJPEG's header call: where it answers, it answers as
/// TurboJPEG does; where the stream is not plain, it leaves the answer to TurboJPEG.
final class JPEGFrameSizeTests: XCTestCase {
    private func walk(_ b: [UInt8]) -> (w: Int, h: Int)? {
        b.withUnsafeBufferPointer { p in p.baseAddress.flatMap { JPEGFrameSize.walk($0, count: b.count) } }
    }

    private func picture(_ w: Int, _ h: Int) -> [UInt32] {
        (0..<(w * h)).map { i in UInt32(truncatingIfNeeded: (i % w) * 9) << 16 | UInt32(truncatingIfNeeded: (i / w) * 5) << 8 | 0x40 }
    }

    /// Where the SOF0 marker starts.
    private func sofOffset(_ b: [UInt8]) -> Int {
        var i = 2
        while i + 1 < b.count {
            if b[i] == 0xff && b[i + 1] == 0xc0 { return i }
            i += 1
        }
        return 0
    }

    /// TurboJPEG's own reading of the header.
    private func turbo(_ b: [UInt8]) -> (w: Int, h: Int)? {
        guard let h = tjInitDecompress() else { return nil }
        defer { tjDestroy(h) }
        var w: Int32 = 0, ht: Int32 = 0, sub: Int32 = 0, cs: Int32 = 0
        return tjDecompressHeader3(h, b, UInt(b.count), &w, &ht, &sub, &cs) == 0 ? (Int(w), Int(ht)) : nil
    }

    func testRealImagesOfEverySizeAndQuality() {
        for (w, h, q) in [(1, 1, 10), (16, 8, 85), (63, 17, 95), (300, 2, 50), (2048, 32, 20)] {
            let (jpeg, _) = makeJPEG(picture(w, h), w: w, h: h, quality: Int32(q))
            let s = walk(jpeg)
            XCTAssertEqual(s?.w, w, "\(w)x\(h) q\(q)"); XCTAssertEqual(s?.h, h, "\(w)x\(h) q\(q)")
        }
    }

    func testUnplainStreamsAreLeftToTurboJPEG() {
        let (jpeg, _) = makeJPEG(picture(16, 8), w: 16, h: 8)
        XCTAssertNil(walk(Array(jpeg.prefix(1))), "truncated before the first marker")
        let rest = Array(jpeg.dropFirst(2))
        XCTAssertNil(walk([0xff, 0xd8, 0xff] + rest), "a fill byte before a marker")
        XCTAssertNil(walk([0xff, 0xd8, 0x00] + rest), "a stray byte before a marker")
        XCTAssertNil(walk([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02] + rest), "a scan before the frame")
        XCTAssertNil(walk([0xff, 0xd8, 0xff, 0xfe, 0x00, 0x01] + rest), "a segment length below 2")
        XCTAssertNil(walk([0xd8, 0xff] + rest), "no SOI")
        // cut anywhere before the frame's size bytes: nothing to answer with
        let sof = sofOffset(jpeg)
        XCTAssertGreaterThan(sof, 0)
        for cut in 0..<(sof + 9) { XCTAssertNil(walk(Array(jpeg.prefix(cut))), "cut at \(cut)") }
        XCTAssertNotNil(walk(Array(jpeg.prefix(sof + 9))))
    }

    /// Mutated headers: wherever the walk gives a size, TurboJPEG's header call gives the same
    /// one, or fails (so decoding fails too: an error either way, never a different picture size).
    func testAgreesWithTurboJPEGOnMutatedHeaders() {
        let (jpeg, _) = makeJPEG(picture(40, 24), w: 40, h: 24)
        let sof = sofOffset(jpeg)
        var rng = SystemRandomNumberGenerator()
        var answered = 0, agreed = 0
        for _ in 0..<3000 {
            var b = jpeg
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                b[Int.random(in: 0..<(sof + 12), using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            guard let mine = walk(b) else { continue }
            answered += 1
            if let theirs = turbo(b) {
                XCTAssertTrue(mine == theirs, "walk \(mine), TurboJPEG \(theirs) for \(b.prefix(sof + 12))")
                agreed += 1
            }
        }
        XCTAssertGreaterThan(answered, 100); XCTAssertGreaterThan(agreed, 50)
    }

    func testTightStillDecodesStreamsTheWalkLeaves() throws {
        // a fill byte before the first marker after SOI: the walk passes, TurboJPEG decodes it
        let (jpeg, ref) = makeJPEG(picture(16, 8), w: 16, h: 8)
        let filled: [UInt8] = [0xff, 0xd8, 0xff] + Array(jpeg.dropFirst(2))
        XCTAssertNil(walk(filled))
        let rect = Rect(x: 0, y: 0, w: 16, h: 8)
        let out = try decodeBothWays({ TightDecoder() }, rect: rect,
                                     bytes: [0x90] + TightWire.compact(filled.count) + filled, fbSize: (16, 8))
        XCTAssertEqual(out, ref.map { $0 & 0x00ff_ffff })
    }
}
