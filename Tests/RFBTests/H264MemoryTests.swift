import CSystem
import Foundation
import XCTest
@testable import RFB

/// What Open H.264 contexts hold: the decoder's estimate of libavcodec's memory against what
/// malloc says was handed out, and the budget that evicts contexts by it.
final class H264MemoryTests: XCTestCase {
    override func setUpWithError() throws { try FFmpeg.require() }
    override class func tearDown() { FFmpeg.cleanUp() }

    /// Bytes malloc has handed out and not had back (every arena, mmap'd blocks too).
    static func heapInUse() -> Int { Int(farcast_heap_in_use()) }

    /// Under AddressSanitizer or ThreadSanitizer malloc is the sanitizer's and glibc's counters
    /// stay at zero: what libavcodec holds is then measured by the plain build's run only.
    static let heapIsCounted: Bool = {
        let before = heapInUse()
        guard let p = malloc(4 << 20) else { return false }
        memset(p, 1, 4 << 20)
        defer { free(p) }
        return heapInUse() - before >= 4 << 20
    }()

    func testEstimateCoversWhatLibavcodecHolds() throws {
        try XCTSkipUnless(Self.heapIsCounted, "malloc's counters are not glibc's here (a sanitizer build)")
        // pictures (one reference, then sixteen: the picture store fills up over 20 frames),
        // several contexts; then 256 parameter sets in one small context, which libavcodec
        // keeps twice (decoder and parser), 170 KiB each
        for (w, h, refs, n) in [(320, 240, 1, 4), (640, 360, 16, 2)] {
            let s = try FFmpeg.encode("testsrc2", w: w, h: h, frames: 20, name: "mem\(w)r\(refs)",
                                      x264: ["-x264-params", "ref=\(refs)"])
            let fb = Framebuffer(width: w * n, height: h)
            let before = Self.heapInUse()
            let d = H264Decoder()
            for i in 0..<20 {
                for k in 0..<n { try runDecoder(d, rect: Rect(x: k * w, y: 0, w: w, h: h), bytes: OpenH264.payload(s.frames[i]), fb: fb) }
            }
            let held = Self.heapInUse() - before
            XCTAssertGreaterThanOrEqual(d.memoryBytes, held, "\(n) contexts of \(w)x\(h), \(refs) references")
            XCTAssertLessThan(d.memoryBytes, held * 3 / 2, "\(n) contexts of \(w)x\(h), \(refs) references: the estimate is far too high")
        }
        let s = try FFmpeg.encode("testsrc2", w: 16, h: 16, frames: 1, name: "mempps")
        let data = try XCTUnwrap(ParameterSets.frame(s.frames[0], withPPS: 1..<256))
        let fb = Framebuffer(width: 16, height: 16)
        let before = Self.heapInUse()
        let d = H264Decoder()
        try runDecoder(d, rect: Rect(x: 0, y: 0, w: 16, h: 16), bytes: OpenH264.payload(data), fb: fb)
        XCTAssertEqual(fb.snapshotPixels(), s.reference[0])
        let held = Self.heapInUse() - before
        XCTAssertGreaterThan(held, 80 << 20, "256 picture parameter sets")
        XCTAssertGreaterThanOrEqual(d.memoryBytes, held)
        XCTAssertLessThan(d.memoryBytes, held * 3 / 2)
    }

    func testContextsOverTheBudgetGoLeastRecentlyUsedFirst() throws {
        // 16x16 contexts sent 64 parameter sets each (23 MiB in libavcodec): a 48 MiB
        // budget holds two; the third pushes out the one used longest ago
        let s = try FFmpeg.encode("testsrc2", w: 16, h: 16, frames: 2, name: "budget")
        let key = try XCTUnwrap(ParameterSets.frame(s.frames[0], withPPS: 1..<64))
        let fb = Framebuffer(width: 64, height: 16)
        let d = H264Decoder(memoryBudget: 48 << 20)
        func tile(_ i: Int) -> Rect { Rect(x: i * 16, y: 0, w: 16, h: 16) }
        let before = Self.heapInUse()
        try runDecoder(d, rect: tile(0), bytes: OpenH264.payload(key), fb: fb)
        try runDecoder(d, rect: tile(1), bytes: OpenH264.payload(key), fb: fb)
        try runDecoder(d, rect: tile(0), bytes: OpenH264.payload(s.frames[1]), fb: fb)
        XCTAssertEqual(d.contextRects, [tile(0), tile(1)])
        try runDecoder(d, rect: tile(2), bytes: OpenH264.payload(key), fb: fb)
        XCTAssertEqual(d.contextRects, [tile(0), tile(2)])
        XCTAssertLessThanOrEqual(d.memoryBytes, 48 << 20)
        if Self.heapIsCounted { XCTAssertLessThan(Self.heapInUse() - before, 48 << 20, "what libavcodec holds") }
        // tile 1's stream went with its context
        XCTAssertThrowsError(try runDecoder(d, rect: tile(1), bytes: OpenH264.payload(s.frames[1]), fb: fb)) {
            XCTAssertTrue("\($0)".contains("the decoder rejected the data"), "\($0)")
        }
    }

    func testAContextAloneOverTheBudgetEndsTheConnection() throws {
        let s = try FFmpeg.encode("testsrc2", w: 16, h: 16, frames: 1, name: "alone")
        let key = try XCTUnwrap(ParameterSets.frame(s.frames[0], withPPS: 1..<64))
        let d = H264Decoder(memoryBudget: 16 << 20)
        XCTAssertThrowsError(try runDecoder(d, rect: Rect(x: 0, y: 0, w: 16, h: 16), bytes: OpenH264.payload(key),
                                            fb: Framebuffer(width: 16, height: 16))) {
            XCTAssertTrue("\($0)".contains("H.264 rect 16x16+0+0: its decoder would hold about 23 MiB"), "\($0)")
            XCTAssertTrue("\($0)".contains("1 SPS and 64 PPS), more than the 16 MiB all H.264 contexts may hold"), "\($0)")
        }
        XCTAssertEqual(d.contextRects, [])
    }

    func testBudgetFollowsTheFramebuffer() {
        XCTAssertEqual(H264Decoder.memoryBudget(framebufferPixels: 1920 * 1080), 256 << 20)
        XCTAssertEqual(H264Decoder.memoryBudget(framebufferPixels: 7680 * 4320), 7680 * 4320 * 16)
    }
}
