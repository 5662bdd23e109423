import XCTest
@testable import RFB
import FarcastTools

/// Hostile-server robustness: real recorded sessions, mutated, fed in random-sized chunks.
/// Every run must end in success or a ProtocolError: no crash, no trap, no other error.
final class RobustnessTests: XCTestCase {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/corpus").standardized

    /// A deterministic generator (SplitMix64) so a failure replays.
    struct Rng { var s: UInt64
        mutating func next() -> UInt64 { s &+= 0x9E37_79B9_7F4A_7C15; var z = s; z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9; z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB; return z ^ (z >> 31) }
        mutating func int(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }
    }

    func loadPrefix(_ name: String, bytes: Int) throws -> [UInt8] {
        let url = RobustnessTests.corpus.appendingPathComponent(name)
        guard let d = FileManager.default.contents(atPath: url.path) else { throw XCTSkip("no \(url.path)") }
        let rec = try RecordedStream(fbs: [UInt8](d))
        return Array(rec.stream.prefix(bytes))
    }

    /// `threads` above 1: every rect that can goes to the workers, however small.
    func feedAll(_ stream: [UInt8], _ rng: inout Rng, threads: Int = 1) -> Error? {
        var s = ClientSettings()
        s.password = Array("x".utf8)
        s.decodeThreads = threads
        let e = ClientEngine(settings: s)
        e.jobs?.offloadEverything()
        var off = 0
        do {
            while off < stream.count {
                let n = min(stream.count - off, 1 + rng.int(rng.int(4) == 0 ? 16 : 70000))
                try stream.withUnsafeBytes { try e.feed($0.baseAddress! + off, count: n) }
                off += n
                _ = e.takeOutput(); _ = e.takeEvents()
            }
            // the stream is over: rects still on workers are waited for (a session learns of a
            // failure through onWorkerFailure)
            try e.checkWorkers(wait: true)
        } catch { return error }
        return nil
    }

    func mutate(_ base: [UInt8], _ rng: inout Rng, after start: Int) -> [UInt8] {
        var b = base
        let count = 1 + rng.int(8)
        for _ in 0..<count {
            let i = start + rng.int(b.count - start)
            switch rng.int(6) {
            case 0: b[i] ^= UInt8(1 << rng.int(8))
            case 1: b[i] = [0x00, 0xff, 0x7f, 0x80][rng.int(4)]
            case 2: for j in i..<min(b.count, i + 4) { b[j] = 0xff }          // huge lengths/sizes
            case 3: b.removeSubrange(i..<min(b.count, i + 1 + rng.int(64)))   // lost bytes
            case 4: b.insert(contentsOf: (0..<(1 + rng.int(16))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, at: i)
            default: b = Array(b.prefix(i))                                    // truncation
            }
        }
        return b
    }

    /// `parallel`: every third mutated stream is also decoded with workers (DecodeManager).
    func fuzz(_ file: String, prefix: Int, runs: Int, seed: UInt64, parallel: Bool = true) throws {
        let base = try loadPrefix(file, bytes: prefix)
        var rng = Rng(s: seed)
        XCTAssertNil(feedAll(base, &rng), "\(file): unmutated prefix must decode")
        var protocolErrors = 0
        for run in 0..<runs {
            // mutate past the version banner most of the time, sometimes anywhere
            let m = mutate(base, &rng, after: rng.int(3) == 0 ? 0 : 12)
            var same = rng
            let err = feedAll(m, &rng)
            if let err {
                XCTAssertTrue(err is ProtocolError, "\(file) run \(run): unexpected error type \(err)")
                protocolErrors += 1
            }
            // the same stream in the same chunks on workers: the same outcome, the same message
            if parallel && run % 3 == 0 {
                let two = feedAll(m, &same, threads: 2)
                XCTAssertEqual(two.map { "\($0)" }, err.map { "\($0)" }, "\(file) run \(run): workers end otherwise")
            }
        }
        // the mutations must actually have reached the decoders' error paths
        XCTAssertGreaterThan(protocolErrors, runs / 10, "\(file): too few mutated streams were rejected")
    }

    func testMutatedZRLE() throws { try fuzz("xvnc-zrle-text-1080p.fbs", prefix: 120_000, runs: 150, seed: 1) }
    func testMutatedTightJPEG() throws { try fuzz("xvnc-tight-q8-desktop-1080p.fbs", prefix: 150_000, runs: 150, seed: 2) }
    func testMutatedTightLossless() throws { try fuzz("xvnc-tight-lossless-text-1080p.fbs", prefix: 120_000, runs: 150, seed: 3) }
    func testMutatedHextile() throws { try fuzz("xvnc-hextile-text-1080p.fbs", prefix: 120_000, runs: 150, seed: 4) }
    func testMutatedZlib() throws { try fuzz("x11vnc-zlib-text-1080p.fbs", prefix: 150_000, runs: 100, seed: 5) }
    func testMutatedCoRRE() throws { try fuzz("x11vnc-corre-text-1080p.fbs", prefix: 150_000, runs: 150, seed: 6) }
    func testMutatedRRE() throws { try fuzz("x11vnc-rre-desktop-1080p.fbs", prefix: 150_000, runs: 100, seed: 7) }
    func testMutatedRaw() throws { try fuzz("xvnc-raw-desktop-1080p.fbs", prefix: 150_000, runs: 100, seed: 8) }
}
