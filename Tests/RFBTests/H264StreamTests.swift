import Foundation
import XCTest
@testable import RFB

/// Open H.264 rects cut from libx264 streams the ways servers send them (several slices a
/// picture, parameter sets at the start only or before every IDR or at a rect's end, frames
/// cropped by the SPS or larger than their rect, several frames a rect, same-size contexts side
/// by side), decoded and compared frame for frame with FFmpeg's own decode of the same bytes.
final class H264StreamTests: XCTestCase {
    override func setUpWithError() throws { try FFmpeg.require() }
    override class func tearDown() { FFmpeg.cleanUp() }

    /// The stream's frames in rects of `groups` (frame ranges), each rect checked against the
    /// last frame in it (cropped to `rect`), one decoder throughout.
    private func check(_ s: H264Stream, rect: Rect, fb: (Int, Int)? = nil, groups: [Range<Int>],
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let (fw, fh) = fb ?? (rect.maxX, rect.maxY)
        let frame = Framebuffer(width: fw, height: fh)
        let d = H264Decoder()
        for g in groups {
            try runDecoder(d, rect: rect, bytes: OpenH264.payload(s.joined(g)), fb: frame)
            XCTAssertEqual(region(frame.snapshotPixels(), fbw: fw, rect), s.crop(g.upperBound - 1, w: rect.w, h: rect.h),
                           "frames \(g) in \(rect)", file: file, line: line)
        }
    }

    /// Every frame alone, then pairs and threes, then the whole stream in one rect.
    private func everyGrouping(_ n: Int) -> [[Range<Int>]] {
        let ones = (0..<n).map { $0..<($0 + 1) }
        var mixed: [Range<Int>] = []
        var at = 0, k = 1
        while at < n { let e = min(n, at + k); mixed.append(at..<e); at = e; k = k % 3 + 1 }
        return [ones, mixed, [0..<n]]
    }

    /// The NAL units of `bytes`, each with its start code.
    private func units(_ bytes: [UInt8]) -> [(type: UInt8, bytes: [UInt8])] {
        var out: [(UInt8, [UInt8])] = []
        bytes.withUnsafeBufferPointer { b in
            AnnexB.forEachNAL(b.baseAddress!, count: b.count) { s, e in
                if s < e { out.append((bytes[s] & 0x1f, Array(bytes[(s - 3)..<e]))) }
            }
        }
        return out
    }

    func testReportedCroppedFramesTwoToARect() throws {
        // the report: a 683x768 rect whose frames are coded 688x776, some rects with two frames
        let s = try FFmpeg.encode("testsrc2", w: 688, h: 776, frames: 6, name: "reported")
        try check(s, rect: Rect(x: 0, y: 0, w: 683, h: 768), groups: [0..<1, 1..<3, 3..<4, 4..<6])
    }

    func testOneFourAndEightSlicesAPicture() throws {
        for n in [1, 4, 8] {
            let s = try FFmpeg.encode("testsrc2", w: 192, h: 144, frames: 6, name: "slices\(n)",
                                      x264: ["-threads", "1", "-x264-params", "slices=\(n)"])
            // the stream really has n slices a picture
            for f in s.frames { XCTAssertEqual(units(f).filter { AnnexB.sliceTypes.contains($0.type) }.count, n) }
            for groups in everyGrouping(6) { try check(s, rect: Rect(x: 0, y: 0, w: 192, h: 144), groups: groups) }
        }
    }

    func testParameterSetsAtTheStartOnlyBeforeEveryIDRAndAtARectsEnd() throws {
        // an IDR every 4 frames; libx264 puts SPS and PPS before each
        let s = try FFmpeg.encode("testsrc2", w: 96, h: 64, frames: 10, name: "keyint",
                                  x264: ["-x264-params", "keyint=4:min-keyint=4:slices=2"])
        let all = units(s.bytes)
        XCTAssertEqual(all.filter { $0.type == AnnexB.spsType }.count, 3)
        let r = Rect(x: 0, y: 0, w: 96, h: 64)
        for groups in everyGrouping(10) { try check(s, rect: r, groups: groups) }
        // the same stream with the parameter sets at its start only, split and decoded by FFmpeg
        var seen = Set<UInt8>()
        let startOnly = all.filter { u in
            guard u.type == AnnexB.spsType || u.type == AnnexB.ppsType else { return true }
            return seen.insert(u.type).inserted
        }.flatMap(\.bytes)
        let file = FFmpeg.dir.appendingPathComponent("startonly.h264").path
        try Data(startOnly).write(to: URL(fileURLWithPath: file))
        let once = try FFmpeg.load(file, w: 96, h: 64)
        XCTAssertEqual(units(once.bytes).filter { $0.type == AnnexB.spsType }.count, 1)
        for groups in everyGrouping(10) { try check(once, rect: r, groups: groups) }
        // parameter sets at the end of the rect before their IDR (and alone before the first)
        let d = H264Decoder()
        let fb = Framebuffer(width: 96, height: 64)
        var pending: [UInt8] = []
        for i in 0..<10 {
            let u = units(s.frames[i])
            let params = u.filter { $0.type == AnnexB.spsType || $0.type == AnnexB.ppsType }.flatMap(\.bytes)
            let rest = u.filter { $0.type != AnnexB.spsType && $0.type != AnnexB.ppsType }.flatMap(\.bytes)
            let next = i + 1 < 10 ? units(s.frames[i + 1]).filter { $0.type == AnnexB.spsType || $0.type == AnnexB.ppsType }.flatMap(\.bytes) : []
            if i == 0 { try runDecoder(d, rect: r, bytes: OpenH264.payload(params), fb: fb) } else { XCTAssertEqual(params, pending) }
            try runDecoder(d, rect: r, bytes: OpenH264.payload(rest + next), fb: fb)
            pending = next
            XCTAssertEqual(fb.snapshotPixels(), s.reference[i], "frame \(i) with the next one's parameter sets behind it")
        }
    }

    func testSizesNotMultiplesOf16InRectsThatAre() throws {
        // libx264 codes 100x60 as 112x64 macroblocks and crops in the SPS; FFmpeg's frames are
        // 100x60. In a 100x60 rect they fit; in 96x48 and 64x32 rects (and at an offset) the
        // top left of each is shown
        let s = try FFmpeg.encode("testsrc2", w: 100, h: 60, frames: 5, name: "crop100", x264: ["-x264-params", "slices=2"])
        for r in [Rect(x: 0, y: 0, w: 100, h: 60), Rect(x: 16, y: 16, w: 96, h: 48), Rect(x: 32, y: 0, w: 64, h: 32)] {
            for groups in everyGrouping(5) { try check(s, rect: r, fb: (128, 80), groups: groups) }
        }
        // odd macroblock counts both ways (130x94 is 9x6 macroblocks), in a 128x80 rect
        let t = try FFmpeg.encode("mandelbrot", w: 130, h: 94, frames: 4, name: "crop130")
        try check(t, rect: Rect(x: 0, y: 0, w: 128, h: 80), groups: [0..<2, 2..<3, 3..<4])
    }

    /// A frame exactly its rect's size, 4:2:0, in 16-pixel groups on 64-byte aligned rows is
    /// converted straight into the framebuffer: FFmpeg's pixels, and nothing outside the rect
    /// touched (swscale writes rows in groups). One not in whole groups goes through scratch.
    func testFramesConvertedInPlaceMatchFFmpegAndStayInTheirRect() throws {
        let s = try FFmpeg.encode("testsrc2", w: 64, h: 48, frames: 4, name: "inplace", x264: ["-x264-params", "slices=2"])
        let t = try FFmpeg.encode("mandelbrot", w: 56, h: 48, frames: 2, name: "notinplace")
        let fb = Framebuffer(width: 144, height: 64, allocator: AlignedPixels())
        let sentinel: UInt32 = 0x00ab_cdef
        fb.fill(Rect(x: 0, y: 0, w: 144, h: 64), sentinel)
        let r = Rect(x: 16, y: 8, w: 64, h: 48), q = Rect(x: 80, y: 8, w: 56, h: 48)
        let d = H264Decoder()
        for i in 0..<4 {
            try runDecoder(d, rect: r, bytes: OpenH264.payload(s.frames[i]), fb: fb)
            if i < 2 { try runDecoder(d, rect: q, bytes: OpenH264.payload(t.frames[i]), fb: fb) }
            let px = fb.snapshotPixels()
            XCTAssertEqual(region(px, fbw: 144, r), s.reference[i], "frame \(i) in place")
            XCTAssertEqual(region(px, fbw: 144, q), t.reference[min(i, 1)], "frame \(min(i, 1)) through scratch")
            for y in 0..<64 {
                for x in 0..<144 where !r.intersects(Rect(x: x, y: y, w: 1, h: 1)) && !q.intersects(Rect(x: x, y: y, w: 1, h: 1)) {
                    XCTAssertEqual(px[y * 144 + x], sentinel, "pixel \(x),\(y) outside the rects")
                }
            }
        }
        XCTAssertEqual(d.framesConvertedInPlace, 4)
    }

    func testSameSizeContextsAtDifferentPlaces() throws {
        // three 64x48 streams at three places: each place is its own context, whatever the size
        let a = try FFmpeg.encode("testsrc2", w: 64, h: 48, frames: 6, name: "placeA", x264: ["-x264-params", "slices=4"])
        let b = try FFmpeg.encode("mandelbrot", w: 64, h: 48, frames: 6, name: "placeB")
        let c = try FFmpeg.encode("smptebars", w: 64, h: 48, frames: 4, name: "placeC")
        let ra = Rect(x: 0, y: 0, w: 64, h: 48), rb = Rect(x: 64, y: 48, w: 64, h: 48), rc = Rect(x: 64, y: 0, w: 64, h: 48)
        let fb = Framebuffer(width: 128, height: 96)
        let d = H264Decoder()
        for i in 0..<6 {
            try runDecoder(d, rect: ra, bytes: OpenH264.payload(a.frames[i]), fb: fb)
            try runDecoder(d, rect: rb, bytes: OpenH264.payload(b.frames[i]), fb: fb)
            if i >= 2 { try runDecoder(d, rect: rc, bytes: OpenH264.payload(c.frames[i - 2]), fb: fb) }
            let px = fb.snapshotPixels()
            XCTAssertEqual(region(px, fbw: 128, ra), a.reference[i], "A frame \(i)")
            XCTAssertEqual(region(px, fbw: 128, rb), b.reference[i], "B frame \(i)")
            if i >= 2 { XCTAssertEqual(region(px, fbw: 128, rc), c.reference[i - 2], "C frame \(i - 2)") }
        }
        XCTAssertEqual(Set(d.contextRects), [ra, rb, rc])
    }

    func testThroughTheEngineWholeAndDripFed() throws {
        // 4 slices, two frames in every other rect, two same-size contexts, through the engine
        // (the decoder locks the framebuffer itself), whole and a byte at a time
        let a = try FFmpeg.encode("testsrc2", w: 48, h: 32, frames: 6, name: "engA", x264: ["-x264-params", "slices=4"])
        let b = try FFmpeg.encode("mandelbrot", w: 48, h: 32, frames: 6, name: "engB")
        let ra = Rect(x: 0, y: 0, w: 48, h: 32), rb = Rect(x: 48, y: 0, w: 48, h: 32)
        var updates: [[UInt8]] = []
        for g in [0..<1, 1..<3, 3..<4, 4..<6] {
            updates.append(OpenH264.update([OpenH264.rect(ra, a.joined(g)), OpenH264.rect(rb, b.joined(g))]))
        }
        let session = OpenH264.session(width: 96, height: 32, updates)
        let whole = try runEngine(session), drip = try runEngine(session, chunk: 1)
        let px = try XCTUnwrap(whole.framebuffer).snapshotPixels()
        XCTAssertEqual(try XCTUnwrap(drip.framebuffer).snapshotPixels(), px)
        XCTAssertEqual(region(px, fbw: 96, ra), a.reference[5])
        XCTAssertEqual(region(px, fbw: 96, rb), b.reference[5])
    }
}

/// Pixels on 64-byte boundaries, as shared memory's pages are (the heap's are 16).
private struct AlignedPixels: PixelAllocator {
    func allocate(_ count: Int) -> UnsafeMutablePointer<UInt32> {
        UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64).bindMemory(to: UInt32.self, capacity: count)
    }
    func deallocate(_ pixels: UnsafeMutablePointer<UInt32>, count: Int) { pixels.deallocate() }
}
