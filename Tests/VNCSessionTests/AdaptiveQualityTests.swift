import XCTest
import RFB
@testable import VNCSession

/// Adaptive quality and the link monitor fed synthetic measurements through a fake clock.
final class AdaptiveQualityTests: XCTestCase {
    /// Feeds `rate(t)` (bits/s) every 50 ms from `from` for `seconds`; returns the changes.
    func feed(_ a: inout AdaptiveQuality, from: Double, seconds: Double, _ rate: (Double) -> Double?) -> [(Double, QualityChoice)] {
        var changes: [(Double, QualityChoice)] = []
        var t = from
        while t < from + seconds {
            if let c = a.observe(bytesPerSecond: rate(t).map { $0 / 8 }, at: t) { changes.append((t, c)) }
            t += 0.05
        }
        return changes
    }

    func testStepDownIsFollowedWithinOneSecond() {
        var a = AdaptiveQuality(pins: .init())
        XCTAssertEqual(a.choice.jpegQuality, 8)
        _ = feed(&a, from: 0, seconds: 5) { _ in 30e6 }
        XCTAssertEqual(a.choice.jpegQuality, 8, "30 Mbit/s keeps quality 8")
        let changes = feed(&a, from: 5, seconds: 3) { _ in 2e6 }
        XCTAssertEqual(changes.count, 1, "one step, straight to the right tier")
        XCTAssertLessThanOrEqual((changes.first?.0 ?? 99) - 5, 1.0, "within 1 s")
        XCTAssertEqual(a.choice.jpegQuality, 4)
    }

    func testStepUpIsFollowedAndReachesLossless() {
        var a = AdaptiveQuality(pins: .init())
        _ = feed(&a, from: 0, seconds: 3) { _ in 2e6 }
        XCTAssertEqual(a.choice.jpegQuality, 4)
        let changes = feed(&a, from: 3, seconds: 3) { _ in 400e6 }
        XCTAssertEqual(changes.count, 1)
        XCTAssertLessThanOrEqual((changes.first?.0 ?? 99) - 3, 1.1)
        XCTAssertNil(a.choice.jpegQuality, "a fast link gets lossless")
        XCTAssertFalse(a.choice.lowColour)
    }

    /// A rate that wanders ±25 % around a tier boundary (10 Mbit/s) must not flip the quality
    /// back and forth.
    func testNoOscillationOnANoisyLink() {
        var a = AdaptiveQuality(pins: .init())
        var seed: UInt64 = 42
        func noise() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let changes = feed(&a, from: 0, seconds: 120) { _ in 10e6 * (0.75 + 0.5 * noise()) }
        XCTAssertLessThanOrEqual(changes.count, 2, "changes: \(changes.map { "\($0.0): \($0.1)" })")
    }

    /// A link that alternates between two rates every 3 s (a flapping boundary): each undone
    /// rise makes the next wait longer, so changes thin out.
    func testFlappingLinkSettles() {
        var a = AdaptiveQuality(pins: .init())
        let changes = feed(&a, from: 0, seconds: 120) { t in Int(t / 3) % 2 == 0 ? 20e6 : 6e6 }
        let late = changes.filter { $0.0 > 60 }.count
        let early = changes.filter { $0.0 <= 60 }.count
        XCTAssertLessThan(late, early, "changes: \(changes.map { "\($0.0): \($0.1)" })")
        XCTAssertLessThanOrEqual(late, 4)
    }

    func testNoMeasurementChangesNothing() {
        var a = AdaptiveQuality(pins: .init())
        XCTAssertTrue(feed(&a, from: 0, seconds: 10) { _ in nil }.isEmpty)
    }

    func testPinsStay() {
        var a = AdaptiveQuality(pins: .init(quality: 9, compress: 3, colour: true))
        _ = feed(&a, from: 0, seconds: 5) { _ in 50e3 }
        XCTAssertEqual(a.choice, QualityChoice(jpegQuality: 9, compressLevel: 3, lowColour: false))
        var b = AdaptiveQuality(pins: .init())
        _ = feed(&b, from: 0, seconds: 5) { _ in 50e3 }
        XCTAssertTrue(b.choice.lowColour, "below 256 kbit/s: 8-bit colour, as TigerVNC")
    }

    // MARK: link monitor

    func testMonitorRatesOverASlidingWindow() {
        var m = LinkMonitor()
        var t = 100.0
        for _ in 0..<20 {          // 2 s of 10 KiB every 50 ms, each taking 40 ms of the link
            m.received(10240, at: t, busySeconds: 0.04)
            m.updateEnded(at: t, decodeSeconds: 0.002)
            t += 0.05
        }
        XCTAssertEqual(m.throughput(at: t), 204800, accuracy: 20480)
        XCTAssertEqual(m.capacity(at: t) ?? 0, 256000, accuracy: 1000)
        XCTAssertEqual(m.updatesPerSecond(at: t), 20, accuracy: 2)
        XCTAssertEqual(m.decodePerUpdate(at: t) ?? 0, 0.002, accuracy: 1e-6)
        XCTAssertEqual(m.throughput(at: t + 5), 0, "the window slides")
        XCTAssertNil(m.capacity(at: t + 5))
    }

    func testMonitorRoundTripIsTheMedianOfProbes() {
        var m = LinkMonitor()
        for (i, rtt) in [0.040, 0.041, 0.300, 0.039, 0.042].enumerated() {
            let t = Double(i)
            let id = m.startProbe(at: t)
            XCTAssertNotNil(id)
            XCTAssertNil(m.startProbe(at: t + 0.01), "one probe at a time")
            m.probeReturned(id, at: t + rtt)
        }
        XCTAssertEqual(m.roundTrip ?? 0, 0.041, accuracy: 1e-9)
        let id = m.startProbe(at: 10)
        m.probeReturned((id ?? 0) &+ 7, at: 10.1)   // someone else's answer: ignored
        XCTAssertTrue(m.probeOutstanding)
    }
}
