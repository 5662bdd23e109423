import FarcastTools
import XCTest
@testable import RFB

/// TightPNG: PNG rects (made here with our own PNG writer), fills and JPEG as in Tight; a PNG
/// in plain Tight, a wrong size and corrupt data fail cleanly.
final class TightPNGTests: XCTestCase {
    func png(_ w: Int, _ h: Int, _ f: (Int, Int) -> UInt32) -> [UInt8] {
        let px = (0..<(w * h)).map { f($0 % w, $0 / w) }
        return px.withUnsafeBufferPointer { PNGWriter.encode(width: w, height: h, pixels: $0.baseAddress!) }
    }

    func testPNGRectDecodesExactly() throws {
        let colour: (Int, Int) -> UInt32 = { x, y in UInt32(x * 20) << 16 | UInt32(y * 30) << 8 | UInt32((x ^ y) * 7) }
        let data = png(9, 5, colour)
        let rect = Rect(x: 2, y: 1, w: 9, h: 5)
        let out = try decodeBothWays({ TightDecoder(png: true) }, rect: rect, bytes: [0xa0] + TightWire.compact(data.count) + data, fbSize: (12, 8))
        for y in 0..<5 { for x in 0..<9 { XCTAssertEqual(out[(y + 1) * 12 + x + 2], colour(x, y), "(\(x),\(y))") } }
        XCTAssertEqual(out[0], 0, "outside the rect untouched")
    }

    func testBadPNGRects() {
        let data = png(4, 4) { _, _ in 0x112233 }
        let rect = Rect(x: 0, y: 0, w: 4, h: 4)
        func fails(_ d: RectDecoder, _ bytes: [UInt8], _ fragment: String, line: UInt = #line) {
            XCTAssertThrowsError(try runDecoder(d, rect: rect, bytes: bytes, fb: Framebuffer(width: 8, height: 8), pf: PixelConverter(format: .native)), line: line) {
                XCTAssertTrue("\($0)".contains(fragment), "'\($0)' lacks '\(fragment)'", line: line)
            }
        }
        fails(TightDecoder(), [0xa0] + TightWire.compact(data.count) + data, "only TightPNG may send")
        fails(TightDecoder(png: true), [0xa0] + TightWire.compact(8) + Array(data.prefix(8)), "bad PNG data")
        let other = png(3, 4) { _, _ in 0 }
        fails(TightDecoder(png: true), [0xa0] + TightWire.compact(other.count) + other, "PNG is 3x4, not the rect's 4x4")
        var broken = data
        broken[broken.count - 20] ^= 0xff
        fails(TightDecoder(png: true), [0xa0] + TightWire.compact(broken.count) + broken, "TightPNG rect")
    }

    typealias PNGFile = PNGTestFile

    /// The ancillary chunks a PNG may carry that would change the pixels if they were applied:
    /// gamma (linear light, and the usual 1/2.2), chromaticities, sRGB, an ICC profile,
    /// transparency (a colour key, palette alphas), text and a private chunk.
    func variants(_ f: PNGFile) -> [(String, PNGFile)] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        func with(_ edit: (inout PNGFile) -> Void) -> PNGFile { var g = f; edit(&g); return g }
        let profile = [UInt8]("farcast test profile: not a real ICC profile".utf8)
        var out: [(String, PNGFile)] = [
            ("plain", f),
            ("gAMA 1.0", with { $0.before = [("gAMA", be32(100_000))] }),
            ("gAMA 1/2.2, cHRM", with { $0.before = [("gAMA", be32(45455)), ("cHRM", [31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000].flatMap(be32))] }),
            ("sRGB", with { $0.before = [("sRGB", [0]), ("gAMA", be32(45455))] }),
            ("iCCP", with { $0.before = [("iCCP", Array("farcast\0".utf8) + [0] + PNGTestFile.zlib(profile))] }),
            ("tEXt, private chunk after the data", with { $0.after = [("tEXt", Array("Comment\0made for a test".utf8)), ("prVt", [1, 2, 3])] }),
        ]
        let key = f.samples[0]
        switch f.type {
        case .grey: out.append(("tRNS colour key", with { $0.afterPalette = [("tRNS", [UInt8(key[0] >> 8), UInt8(key[0] & 0xff)])] }))
        case .rgb: out.append(("tRNS colour key", with { $0.afterPalette = [("tRNS", key.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] })] }))
        case .palette:
            // entries fully and half transparent, the rest opaque
            out.append(("tRNS alphas", with { $0.afterPalette = [("tRNS", (0..<f.palette.count).map { [0, 128, 255][$0 % 3] })] }))
        default: break
        }
        return out
    }

    /// Every colour type and bit depth, plain and interlaced, with and without each ancillary
    /// chunk: the pixels are the stored samples (16-bit rounded to 8 bits), whatever gamma,
    /// profile or transparency the file names; a transparent pixel keeps its colour.
    func testEveryColourTypeAndDepthGivesTheStoredSamples() throws {
        let kinds: [(PNGFile.ColourType, [Int])] = [(.grey, [1, 2, 4, 8, 16]), (.rgb, [8, 16]), (.palette, [1, 2, 4, 8]),
                                                    (.greyAlpha, [8, 16]), (.rgba, [8, 16])]
        let rect = Rect(x: 3, y: 2, w: 13, h: 7)
        var checked = 0
        for (type, depths) in kinds {
            for depth in depths {
                // a partial palette at 8 bits; every other pixel fully transparent where there is alpha
                var f = PNGFile.random(rect.w, rect.h, type, depth: depth, seed: UInt64(depth * 10) + UInt64(type.rawValue),
                                       paletteSize: type == .palette && depth == 8 ? 200 : nil)
                let alpha = f.channels - 1
                if type == .greyAlpha || type == .rgba {
                    f = PNGFile(width: f.width, height: f.height, type: type, depth: depth,
                                samples: f.samples.enumerated().map { i, s in var t = s; if i % 2 == 0 { t[alpha] = 0 }; return t })
                }
                for (name, v) in variants(f) {
                    for interlaced in [false, true] {
                        var g = v
                        g.interlaced = interlaced
                        let png = g.bytes
                        let what = "type \(type) depth \(depth) \(name)\(interlaced ? " interlaced" : "")"
                        let out = try decodeBothWays({ TightDecoder(png: true) }, rect: rect,
                                                     bytes: [0xa0] + TightWire.compact(png.count) + png, fbSize: (20, 12))
                        var want = [UInt32](repeating: 0, count: 20 * 12)
                        for (i, p) in g.expected.enumerated() { want[(rect.y + i / rect.w) * 20 + rect.x + i % rect.w] = p }
                        if out != want {
                            let bad = (0..<want.count).first { out[$0] != want[$0] } ?? 0
                            XCTFail("\(what): pixel \(bad % 20),\(bad / 20) is \(String(out[bad], radix: 16)), not \(String(want[bad], radix: 16))")
                        }
                        checked += 1
                    }
                }
            }
        }
        XCTAssertEqual(checked, 15 * 6 * 2 + (5 + 2 + 4) * 2)
    }

    /// A palette index past the palette's end (libpng pads the palette with black): black, or
    /// an error; never a read past the palette.
    func testPaletteIndexPastTheEnd() throws {
        var f = PNGFile.random(8, 2, .palette, depth: 4, seed: 7, paletteSize: 3)
        f = PNGFile(width: 8, height: 2, type: .palette, depth: 4, samples: f.samples.enumerated().map { i, s in i == 5 ? [14] : s },
                    palette: f.palette)
        let png = f.bytes
        do {
            let out = try decodeBothWays({ TightDecoder(png: true) }, rect: Rect(x: 0, y: 0, w: 8, h: 2),
                                         bytes: [0xa0] + TightWire.compact(png.count) + png, fbSize: (8, 2))
            XCTAssertEqual(out[5], 0, "black past the palette")
            let p = f.palette[f.samples[4][0]]
            XCTAssertEqual(out[4], UInt32(p.r) << 16 | UInt32(p.g) << 8 | UInt32(p.b))
        } catch let e as ProtocolError {
            XCTAssertTrue(e.message.contains("TightPNG rect"), e.message)
        }
    }

    func testTightPNGIsOfferedByName() throws {
        XCTAssertEqual(try Encoding.parseList("tightpng,zrle"), [-260, 16])
    }
}
