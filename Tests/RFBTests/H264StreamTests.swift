import Foundation
import XCTest
@testable import RFB

/// Open H.264 rects cut from libx264 streams the way servers send them (several slices a
/// picture, parameter sets here or there, frames cropped by the SPS or larger than their
/// rect, several frames a rect), decoded and compared frame for frame with FFmpeg's own decode.
final class H264StreamTests: XCTestCase {
    override func setUpWithError() throws { try FFmpeg.require() }
    override class func tearDown() { FFmpeg.cleanUp() }

    func testReportedCroppedFramesTwoToARect() throws {
        // the report: a 683x768 rect whose frames are coded 688x776, some rects with two frames
        let s = try FFmpeg.encode("testsrc2", w: 688, h: 776, frames: 6, name: "reported")
        let r = Rect(x: 0, y: 0, w: 683, h: 768)
        let fb = Framebuffer(width: 683, height: 768)
        let d = H264Decoder()
        for group in [0..<1, 1..<3, 3..<4, 4..<6] {
            try runDecoder(d, rect: r, bytes: OpenH264.payload(s.joined(group)), fb: fb)
            XCTAssertEqual(fb.snapshotPixels(), s.crop(group.upperBound - 1, w: 683, h: 768), "frames \(group)")
        }
    }
}
