import Foundation
import XCTest
@testable import VNCSession

final class FiguresTests: XCTestCase {
    /// The same text as printf's %.Nf wherever the value is not a rounding tie (printf rounds
    /// the binary value, we round its scaled product: the two can differ on an exact half).
    func testFixedMatchesPrintf() {
        var values: [Double] = [0, -0.0, 1, -1, 0.5001, 2.345, 9.96, 9.9951, 99.95001, 0.004, -0.004, 1234567.891, 1e-9, 3e12]
        var seed: UInt64 = 0x9e37_79b9_7f4a_7c15
        for _ in 0..<3000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let mantissa = Double(seed >> 11) / Double(1 << 53)
            values.append((mantissa - 0.3) * pow(10, Double(Int(seed & 7)) - 2))
        }
        for v in values {
            for places in 0...3 {
                let scaled = abs(v) * pow(10, Double(places))
                if abs(scaled - scaled.rounded(.down) - 0.5) < 1e-6 { continue }  // a tie
                var want = String(format: "%.\(places)f", v)
                if want.hasPrefix("-"), Double(want) == 0 { want.removeFirst() }   // printf keeps "-0.0"
                XCTAssertEqual(Figures.fixed(v, places), want, "\(v) to \(places) places")
            }
        }
        XCTAssertEqual(Figures.fixed(.nan, 1), "nan")
        XCTAssertEqual(Figures.fixed(-.infinity, 1), "-inf")
    }

    func testHexAndLinkFigures() {
        XCTAssertEqual(Figures.hex([0x00, 0x0f, 0xa5, 0xff]), "000fa5ff")
        XCTAssertEqual(Figures.hex([]), "")
        XCTAssertEqual(LinkSummary.rate(3_125_000), "25.0 Mbit/s")
        XCTAssertEqual(LinkSummary.rate(2e9 / 8 * 1.26), "2.5 Gbit/s")
        XCTAssertEqual(LinkSummary.rate(120_000 / 8), "120 kbit/s")
        XCTAssertEqual(LinkSummary.ms(0.0004), "0.40 ms")
        XCTAssertEqual(LinkSummary.ms(0.0406), "41 ms")
    }
}
