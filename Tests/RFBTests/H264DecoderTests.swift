import Foundation
import XCTest
import FarcastTools
@testable import RFB

/// Open H.264 rects of libx264 streams, decoded and compared pixel for pixel with FFmpeg's
/// own decode of the same bytes (libswscale converts both, with the same flags: exact).
/// This machine's path is the software one: VA-API is tried and, without a GPU, not there.
final class H264DecoderTests: XCTestCase {
    override func setUpWithError() throws { try FFmpeg.require() }
    override class func tearDown() { FFmpeg.cleanUp() }

    /// Decodes `rects` (rect, data, flags) in order with one decoder; checks after each.
    private func decodeSequence(_ d: H264Decoder, fb: Framebuffer, _ rects: [(Rect, [UInt8], UInt32)],
                                check: (Int) -> Void = { _ in }) throws {
        for (i, (r, data, flags)) in rects.enumerated() {
            try runDecoder(d, rect: r, bytes: OpenH264.payload(data, flags: flags), fb: fb)
            check(i)
        }
    }

    func testOneContextEveryFrameMatchesFFmpeg() throws {
        let s = try FFmpeg.encode("testsrc2", w: 96, h: 64, frames: 12, name: "one")
        let fb = Framebuffer(width: 96, height: 64)
        let d = H264Decoder()
        let r = Rect(x: 0, y: 0, w: 96, h: 64)
        try decodeSequence(d, fb: fb, s.frames.indices.map { (r, s.frames[$0], $0 == 0 ? H264Decoder.resetAllContextsFlag : 0) }) { i in
            XCTAssertEqual(fb.snapshotPixels(), s.reference[i], "frame \(i)")
        }
        XCTAssertEqual(d.contextRects, [r])
    }

    func testLargeRectOfSeveralSlicesOnSliceThreads() throws {
        // several slices a picture (two here; the later ones start past macroblock 0), on threads
        let s = try FFmpeg.encode("testsrc2", w: 704, h: 400, frames: 4, name: "slices", x264: ["-x264-params", "slices=4"])
        let r = Rect(x: 0, y: 0, w: 704, h: 400)
        XCTAssertGreaterThanOrEqual(r.area, H264Context.threadedArea)
        let fb = Framebuffer(width: 704, height: 400)
        try decodeSequence(H264Decoder(), fb: fb, s.frames.map { (r, $0, 0) }) { i in
            XCTAssertEqual(fb.snapshotPixels(), s.reference[i], "frame \(i)")
        }
    }

    func testRectInsideALargerFramebuffer() throws {
        // the rect's neighbours keep their pixels: nothing is written past its right edge
        let s = try FFmpeg.encode("testsrc2", w: 50, h: 30, frames: 3, name: "inside")
        let fb = Framebuffer(width: 80, height: 40)
        fb.fill(fb.bounds, 0x123456)
        let r = Rect(x: 7, y: 5, w: 50, h: 30)
        try decodeSequence(H264Decoder(), fb: fb, s.frames.map { (r, $0, 0) })
        let px = fb.snapshotPixels()
        XCTAssertEqual(region(px, fbw: 80, r), s.reference[2])
        for y in 0..<40 { for x in 0..<80 where !(r.x..<r.maxX).contains(x) || !(r.y..<r.maxY).contains(y) {
            XCTAssertEqual(px[y * 80 + x], 0x123456, "(\(x),\(y))")
        } }
    }

    func testSeveralContextsSideBySide() throws {
        let a = try FFmpeg.encode("testsrc2", w: 64, h: 48, frames: 6, name: "left")
        let b = try FFmpeg.encode("mandelbrot", w: 48, h: 48, frames: 6, name: "right")
        let ra = Rect(x: 0, y: 0, w: 64, h: 48), rb = Rect(x: 64, y: 0, w: 48, h: 48)
        let fb = Framebuffer(width: 112, height: 48)
        let d = H264Decoder()
        var rects: [(Rect, [UInt8], UInt32)] = []
        for i in 0..<6 { rects += [(ra, a.frames[i], 0), (rb, b.frames[i], 0)] }
        try decodeSequence(d, fb: fb, rects) { k in
            let i = k / 2
            let px = fb.snapshotPixels()
            XCTAssertEqual(region(px, fbw: 112, ra), a.reference[i], "left frame \(i)")
            if k % 2 == 1 { XCTAssertEqual(region(px, fbw: 112, rb), b.reference[i], "right frame \(i)") }
        }
        XCTAssertEqual(Set(d.contextRects), [ra, rb])
    }

    func testSeveralFramesInOneRect() throws {
        let s = try FFmpeg.encode("testsrc2", w: 64, h: 48, frames: 10, name: "many")
        let r = Rect(x: 0, y: 0, w: 64, h: 48)
        // all at once, and in three rects of several frames each: the last frame is shown
        let fb1 = Framebuffer(width: 64, height: 48)
        try decodeSequence(H264Decoder(), fb: fb1, [(r, s.bytes, 0)])
        XCTAssertEqual(fb1.snapshotPixels(), s.reference[9])
        let fb2 = Framebuffer(width: 64, height: 48)
        try decodeSequence(H264Decoder(), fb: fb2, [(r, s.joined(0..<4), 0), (r, s.joined(4..<7), 0)]) { i in
            XCTAssertEqual(fb2.snapshotPixels(), s.reference[i == 0 ? 3 : 6])
        }
        try decodeSequence(H264Decoder(), fb: fb2, [(r, s.joined(0..<10), 0)])
        XCTAssertEqual(fb2.snapshotPixels(), s.reference[9])
    }

    func testParameterSetsAloneDrawNothing() throws {
        let s = try FFmpeg.encode("testsrc2", w: 32, h: 32, frames: 2, name: "params")
        // SPS and PPS lead the first frame; sent in a rect of their own they change no pixel
        var units: [Int] = []
        s.frames[0].withUnsafeBufferPointer { b in AnnexB.forEachNAL(b.baseAddress!, count: b.count) { start, _ in units.append(start) } }
        let sliceStart = units.first { s.frames[0][$0] & 0x1f == 5 || s.frames[0][$0] & 0x1f == 6 }!
        let params = Array(s.frames[0][..<(sliceStart - 3)]), rest = Array(s.frames[0][(sliceStart - 3)...])
        let fb = Framebuffer(width: 32, height: 32)
        fb.fill(fb.bounds, 0xabcdef)
        let r = Rect(x: 0, y: 0, w: 32, h: 32)
        try decodeSequence(H264Decoder(), fb: fb, [(r, params, 0)])
        XCTAssertEqual(Set(fb.snapshotPixels()), [0xabcdef])
        let d = H264Decoder()
        try decodeSequence(d, fb: fb, [(r, params, 0), (r, rest, 0), (r, s.frames[1], 0)])
        XCTAssertEqual(fb.snapshotPixels(), s.reference[1])
    }

    func testOversizedFrameIsCropped() throws {
        // a 64x48 stream in a 50x40 rect: the top left 50x40 of each frame
        let s = try FFmpeg.encode("testsrc2", w: 64, h: 48, frames: 4, name: "oversized")
        let r = Rect(x: 3, y: 2, w: 50, h: 40)
        let fb = Framebuffer(width: 60, height: 45)
        try decodeSequence(H264Decoder(), fb: fb, s.frames.map { (r, $0, 0) }) { i in
            XCTAssertEqual(region(fb.snapshotPixels(), fbw: 60, r), s.crop(i, w: 50, h: 40), "frame \(i)")
        }
    }

    func testResetContextStartsAfresh() throws {
        let a = try FFmpeg.encode("testsrc2", w: 48, h: 32, frames: 4, name: "resetA")
        let b = try FFmpeg.encode("smptebars", w: 48, h: 32, frames: 2, name: "resetB")
        let r = Rect(x: 0, y: 0, w: 48, h: 32)
        let fb = Framebuffer(width: 48, height: 32)
        let d = H264Decoder()
        try decodeSequence(d, fb: fb, [(r, a.frames[0], 0), (r, a.frames[1], 0)])
        XCTAssertEqual(fb.snapshotPixels(), a.reference[1])
        // a new stream after a reset
        try decodeSequence(d, fb: fb, [(r, b.frames[0], H264Decoder.resetContextFlag), (r, b.frames[1], 0)])
        XCTAssertEqual(fb.snapshotPixels(), b.reference[1])
        // the reset dropped the old stream: its next frame alone has no parameter sets to go by
        let fresh = H264Decoder()
        try decodeSequence(fresh, fb: fb, [(r, a.frames[0], 0), (r, a.frames[1], 0)])
        XCTAssertThrowsError(try decodeSequence(fresh, fb: fb, [(r, a.frames[2], H264Decoder.resetContextFlag)])) {
            XCTAssertTrue("\($0)".contains("H.264 rect 48x32+0+0: the decoder rejected the data"), "\($0)")
        }
        // a reset with no data just drops the context
        let d2 = H264Decoder()
        try decodeSequence(d2, fb: fb, [(r, a.frames[0], 0), (r, [], H264Decoder.resetContextFlag)])
        XCTAssertEqual(d2.contextRects, [])
    }

    func testResetAllContexts() throws {
        let a = try FFmpeg.encode("testsrc2", w: 32, h: 32, frames: 3, name: "allA")
        let b = try FFmpeg.encode("mandelbrot", w: 32, h: 32, frames: 3, name: "allB")
        let ra = Rect(x: 0, y: 0, w: 32, h: 32), rb = Rect(x: 32, y: 0, w: 32, h: 32)
        let fb = Framebuffer(width: 64, height: 32)
        let d = H264Decoder()
        try decodeSequence(d, fb: fb, [(ra, a.frames[0], 0), (rb, b.frames[0], 0), (ra, a.frames[1], 0)])
        XCTAssertEqual(Set(d.contextRects), [ra, rb])
        // reset-all with data: only the rect's own new context is left
        try decodeSequence(d, fb: fb, [(rb, b.frames[0], H264Decoder.resetAllContextsFlag)])
        XCTAssertEqual(d.contextRects, [rb])
        XCTAssertEqual(region(fb.snapshotPixels(), fbw: 64, rb), b.reference[0])
        XCTAssertThrowsError(try decodeSequence(d, fb: fb, [(ra, a.frames[2], 0)]))
        // reset-all without data
        try decodeSequence(d, fb: fb, [(ra, a.frames[0], 0), (ra, [], H264Decoder.resetAllContextsFlag)])
        XCTAssertEqual(d.contextRects, [])
    }

    func testDripFedThroughTheEngineEqualsWhole() throws {
        let a = try FFmpeg.encode("testsrc2", w: 40, h: 24, frames: 5, name: "dripA")
        let b = try FFmpeg.encode("mandelbrot", w: 24, h: 24, frames: 5, name: "dripB")
        let ra = Rect(x: 0, y: 0, w: 40, h: 24), rb = Rect(x: 40, y: 0, w: 24, h: 24)
        var updates = [OpenH264.update([OpenH264.rect(ra, a.frames[0], flags: 2), OpenH264.rect(rb, b.frames[0])])]
        updates += (1..<5).map { OpenH264.update([OpenH264.rect(ra, a.frames[$0]), OpenH264.rect(rb, b.frames[$0])]) }
        let session = OpenH264.session(width: 64, height: 24, updates)
        let whole = try runEngine(session)
        let drip = try runEngine(session, chunk: 1)
        let px = try XCTUnwrap(whole.framebuffer).snapshotPixels()
        XCTAssertEqual(try XCTUnwrap(drip.framebuffer).snapshotPixels(), px)
        XCTAssertEqual(region(px, fbw: 64, ra), a.reference[4])
        XCTAssertEqual(region(px, fbw: 64, rb), b.reference[4])
        XCTAssertEqual(whole.stats.updates, 5)
    }

    func testOddSizesAndFullRangeMatchFFmpeg() throws {
        // 4:4:4 at an odd size takes swscale's general path; a full-range BT.709 stream is
        // converted as it says
        let odd = try FFmpeg.encode("testsrc", w: 37, h: 23, frames: 3, name: "odd", x264: ["-pix_fmt", "yuv444p"])
        let fb = Framebuffer(width: 37, height: 23)
        let r = Rect(x: 0, y: 0, w: 37, h: 23)
        try decodeSequence(H264Decoder(), fb: fb, odd.frames.map { (r, $0, 0) })
        XCTAssertEqual(fb.snapshotPixels(), odd.reference[2])
        let full = try FFmpeg.encode("testsrc2", w: 48, h: 32, frames: 2, name: "fullrange",
                                     x264: ["-color_range", "pc", "-colorspace", "bt709"])
        let fb2 = Framebuffer(width: 48, height: 32)
        try decodeSequence(H264Decoder(), fb: fb2, full.frames.map { (Rect(x: 0, y: 0, w: 48, h: 32), $0, 0) })
        XCTAssertEqual(fb2.snapshotPixels(), full.reference[1])
    }

    func testRecordingThroughTheBenchMatchesFFmpeg() throws {
        let s = try FFmpeg.encode("testsrc2", w: 160, h: 96, frames: 8, name: "bench")
        let r = Rect(x: 0, y: 0, w: 160, h: 96)
        let updates = s.frames.indices.map { OpenH264.update([OpenH264.rect(r, s.frames[$0], flags: $0 == 0 ? 2 : 0)]) }
        let file = FFmpeg.dir.appendingPathComponent("h264-bench.fbs")
        try Data(OpenH264.recording(width: 160, height: 96, updates)).write(to: file)
        let (result, fb) = try DecodeBench.run(path: file.path, split: true)
        XCTAssertEqual(result.updates, 8)
        XCTAssertEqual(result.pixels, 8 * 160 * 96)
        XCTAssertGreaterThan(result.h264Seconds ?? 0, 0)
        XCTAssertEqual(try XCTUnwrap(fb).snapshotPixels(), s.reference[7])
    }
}
