import Foundation
import XCTest
@testable import RFB

/// Bad Open H.264 input ends in a ProtocolError naming the rect, never a crash, and the
/// decoder's memory stays bounded: lengths, frame sizes and contexts all have limits.
final class H264RobustnessTests: XCTestCase {
    override class func tearDown() { FFmpeg.cleanUp() }

    private func expectError(_ d: H264Decoder = H264Decoder(), rect: Rect, _ payload: [UInt8],
                             fb: Framebuffer = Framebuffer(width: 64, height: 64), _ fragment: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try runDecoder(d, rect: rect, bytes: payload, fb: fb), file: file, line: line) { e in
            XCTAssertTrue(e is ProtocolError, "\(e)", file: file, line: line)
            XCTAssertTrue("\(e)".contains(fragment), "\(e)", file: file, line: line)
        }
    }

    func testParameterSetIDsAndSlices() throws {
        // SPS id 3 behind profile 0, constraints 0 and an emulation-prevention byte, level 1
        // (ue(3) = 00100); PPS ids 0 (ue(0) = 1) and 200 (ue(200) = 0000000 11001001); an IDR slice
        let sps: [UInt8] = [0, 0, 0, 1, 0x67, 0x00, 0x00, 0x03, 0x01, 0b0010_0000]
        let pps0: [UInt8] = [0, 0, 1, 0x68, 0xce]
        let pps200: [UInt8] = [0, 0, 1, 0x68, 0x01, 0x93]
        let idr: [UInt8] = [0, 0, 1, 0x65, 0x88, 0x80]
        var bits = RBSPBits([0x00, 0x00, 0x03, 0x01, 0x20], count: 5)
        bits.skip(24)
        XCTAssertEqual(bits.ue(), 3)
        let data = sps + pps0 + pps200 + pps0 + idr
        var s = IDSet(), p = IDSet()
        try data.withUnsafeBufferPointer { try AnnexB.scan($0.baseAddress!, count: $0.count, rect: Rect(x: 0, y: 0, w: 1, h: 1), sps: &s, pps: &p) }
        var s3 = IDSet(); s3.insert(3)
        var p0200 = IDSet(); p0200.insert(0); p0200.insert(200)
        XCTAssertEqual(s, s3)
        XCTAssertEqual(p, p0200)
        XCTAssertEqual(p.count, 2)
        XCTAssertTrue(idr.withUnsafeBufferPointer { AnnexB.hasSlice($0.baseAddress!, count: $0.count) })
        XCTAssertFalse((sps + pps0).withUnsafeBufferPointer { AnnexB.hasSlice($0.baseAddress!, count: $0.count) })
    }

    func testNotAnnexB() {
        let r = Rect(x: 0, y: 0, w: 16, h: 16)
        expectError(rect: r, OpenH264.payload([1, 2, 3, 4, 5, 6, 7, 8]), "H.264 rect 16x16+0+0: no NAL unit start code in its 8 bytes")
        expectError(rect: r, OpenH264.payload([9, 0, 0, 1, 0x67, 0x42]), "does not begin with a NAL unit start code")
        expectError(rect: r, OpenH264.payload([0, 0, 1, 0xe7, 0x42]), "NAL unit 1 at byte 3 has its forbidden_zero_bit set")
    }

    func testCorruptNALUnits() throws {
        try FFmpeg.require()
        let s = try FFmpeg.encode("testsrc2", w: 64, h: 48, frames: 3, name: "corrupt")
        let r = Rect(x: 0, y: 0, w: 64, h: 48)
        // a P-frame with no stream before it: nothing to decode it against
        expectError(rect: r, OpenH264.payload(s.frames[1]), "H.264 rect 64x48+0+0: the decoder rejected the data")
        // a sequence parameter set of garbage (here it reads as a 16x16 picture)
        var badSPS = s.frames[0]
        var starts: [Int] = []
        badSPS.withUnsafeBufferPointer { b in AnnexB.forEachNAL(b.baseAddress!, count: b.count) { start, _ in starts.append(start) } }
        for i in (starts[0] + 1)..<(starts[1] - 4) { badSPS[i] = 0xff }
        expectError(rect: r, OpenH264.payload(badSPS), "H.264 rect 64x48+0+0: ")
        // slice data overwritten and cut short: libavcodec conceals what it can or refuses;
        // either way the result is pixels or a ProtocolError, never a crash
        var rng = SystemRandomNumberGenerator()
        for cut in [0.3, 0.6, 0.9] {
            var bad = s.frames[0]
            let from = Int(Double(bad.count) * cut)
            for i in from..<bad.count { bad[i] = UInt8.random(in: 0...255, using: &rng) }
            for tail in [bad, Array(bad[..<from])] {
                do {
                    try runDecoder(H264Decoder(), rect: r, bytes: OpenH264.payload(tail), fb: Framebuffer(width: 64, height: 48))
                } catch let e as ProtocolError {
                    XCTAssertTrue(e.message.hasPrefix("H.264 rect 64x48+0+0: "), e.message)
                }
            }
        }
    }

    func testLengthPastTheLimit() {
        let r = Rect(x: 0, y: 0, w: 16, h: 16)
        let limit = H264Decoder.maxLength(r)
        // frames up to 64 pixels larger each way, the width in libavcodec's 64-pixel rows
        XCTAssertEqual(limit, 128 * 80 * 4 * 2 + 65536)
        // refused from the header alone: nothing is buffered or allocated for it
        expectError(rect: r, be32(limit + 1) + be32(0), "H.264 rect 16x16+0+0: length \(limit + 1) exceeds the limit of \(limit) bytes")
        expectError(rect: r, be32(0xffff_ffff) + be32(0), "exceeds the limit")
    }

    func testLengthPastTheDataWaitsForMore() throws {
        // a length longer than what has arrived: the decoder waits, consuming nothing
        let r = Rect(x: 0, y: 0, w: 16, h: 16)
        let d = H264Decoder()
        XCTAssertThrowsError(try runDecoder(d, rect: r, bytes: be32(100) + be32(0) + [0, 0, 1, 0x67], fb: Framebuffer(width: 16, height: 16))) {
            XCTAssertTrue("\($0)".contains("test harness: decoder wants more"), "\($0)")
        }
        XCTAssertEqual(d.contextRects, [])
    }

    func testFrameFarLargerThanItsRectIsRefused() throws {
        try FFmpeg.require()
        // 256x128 frames in a 16x16 rect: more than the rect's padded size, so libavcodec
        // allocates nothing for them
        let s = try FFmpeg.encode("testsrc2", w: 256, h: 128, frames: 1, name: "huge")
        expectError(rect: Rect(x: 0, y: 0, w: 16, h: 16), OpenH264.payload(s.frames[0]), "the decoder rejected the data")
    }

    func testFrameSmallerThanItsRect() throws {
        try FFmpeg.require()
        let s = try FFmpeg.encode("testsrc2", w: 32, h: 32, frames: 1, name: "small")
        expectError(rect: Rect(x: 0, y: 0, w: 40, h: 32), OpenH264.payload(s.frames[0]),
                    "H.264 rect 40x32+0+0: the decoded frame is 32x32, smaller than the rect")
    }

    func testTooManyContextsEvictTheLeastRecentlyUsed() throws {
        try FFmpeg.require()
        let s = try FFmpeg.encode("testsrc2", w: 16, h: 16, frames: 2, name: "tile")
        // 66 tiles of 16x16 in a row; tile 0 is used again before tile 64 arrives
        let fb = Framebuffer(width: 66 * 16, height: 16)
        let d = H264Decoder()
        func tile(_ i: Int) -> Rect { Rect(x: i * 16, y: 0, w: 16, h: 16) }
        for i in 0..<64 { try runDecoder(d, rect: tile(i), bytes: OpenH264.payload(s.frames[0]), fb: fb) }
        XCTAssertEqual(d.contextRects.count, H264Decoder.maxContexts)
        try runDecoder(d, rect: tile(0), bytes: OpenH264.payload(s.frames[1]), fb: fb)
        try runDecoder(d, rect: tile(64), bytes: OpenH264.payload(s.frames[0]), fb: fb)
        try runDecoder(d, rect: tile(65), bytes: OpenH264.payload(s.frames[0]), fb: fb)
        let live = Set(d.contextRects)
        XCTAssertEqual(live.count, H264Decoder.maxContexts)
        XCTAssertTrue(live.contains(tile(0)) && live.contains(tile(64)) && live.contains(tile(65)))
        XCTAssertFalse(live.contains(tile(1)) || live.contains(tile(2)))
        // tile 1's stream went with its context: its next frame has nothing to refer to
        expectError(d, rect: tile(1), OpenH264.payload(s.frames[1]), fb: fb, "the decoder rejected the data")
    }

    func testContextsCoverAtMostTwiceTheFramebuffer() throws {
        try FFmpeg.require()
        let s = try FFmpeg.encode("testsrc2", w: 64, h: 64, frames: 1, name: "cover")
        let fb = Framebuffer(width: 64, height: 64)
        let d = H264Decoder()
        for r in [Rect(x: 0, y: 0, w: 64, h: 64), Rect(x: 0, y: 0, w: 64, h: 63), Rect(x: 0, y: 0, w: 63, h: 64)] {
            try runDecoder(d, rect: r, bytes: OpenH264.payload(s.frames[0]), fb: fb)
        }
        XCTAssertEqual(d.contextRects, [Rect(x: 0, y: 0, w: 64, h: 63), Rect(x: 0, y: 0, w: 63, h: 64)])
    }

    func testEngineEndsTheConnectionWithTheMessage() {
        let r = Rect(x: 0, y: 0, w: 8, h: 8)
        let session = OpenH264.session(width: 8, height: 8, [OpenH264.update([OpenH264.rect(r, [0, 0, 1, 0xff])])])
        XCTAssertThrowsError(try runEngine(session)) {
            XCTAssertTrue("\($0)".contains("H.264 rect 8x8+0+0: NAL unit 1 at byte 3 has its forbidden_zero_bit set"), "\($0)")
        }
    }

    func testEncodingNamesAndDefaults() throws {
        XCTAssertEqual(try Encoding.parseList("h264,tight"), [Encoding.h264, Encoding.tight])
        XCTAssertEqual(Encoding.name(Encoding.h264), "h264")
        var s = ClientSettings()
        // lossless unless a quality is given: no H.264 by default
        XCTAssertFalse(s.encodingList.contains(Encoding.h264))
        s.jpegQuality = 8
        let l = s.encodingList
        XCTAssertEqual(l.firstIndex(of: Encoding.h264), l.firstIndex(of: Encoding.zrle).map { $0 + 1 })
        var named = ClientSettings()
        named.encodings = [Encoding.h264, Encoding.raw]; named.encodingsNamedByUser = true
        XCTAssertEqual(Array(named.encodingList.prefix(2)), [Encoding.h264, Encoding.raw])
    }
}
