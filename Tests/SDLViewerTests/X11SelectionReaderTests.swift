import Foundation
@testable import SDLViewer
import XCTest

/// The X11 selection reader against a real Xvfb with xclip as the owner: INCR transfers (xclip
/// sends 1 MiB and more in parts), the size cap, the STRING fallback, a new owner seen without
/// being asked (XFixes), and an owner that never answers.
final class X11SelectionReaderTests: XCTestCase {
    var display = ""
    var children: [Process] = []

    override func setUpWithError() throws {
        for tool in ["/usr/bin/Xvfb", "/usr/bin/xclip"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("\(tool) is not installed")
        }
        // -displayfd: Xvfb picks a free display and prints its number once it accepts clients
        let out = Pipe()
        let x = try spawn("/usr/bin/Xvfb", ["-displayfd", "1", "-nolisten", "tcp", "-noreset", "-screen", "0", "64x64x24"], stdout: out)
        let number = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard !number.isEmpty, x.isRunning else { throw XCTSkip("Xvfb did not start") }
        display = ":\(number)"
    }

    override func tearDown() {
        for p in children.reversed() where p.isRunning {
            kill(p.processIdentifier, SIGCONT)
            p.terminate()
            p.waitUntilExit()
        }
        children.removeAll()
    }

    @discardableResult
    func spawn(_ path: String, _ args: [String], stdout: Pipe? = nil, stdin: Pipe? = nil) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.environment = ["DISPLAY": display, "PATH": "/usr/bin:/bin"]
        p.standardOutput = stdout ?? FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        if let stdin { p.standardInput = stdin }
        try p.run()
        children.append(p)
        return p
    }

    /// xclip owning `selection` with `bytes` (-quiet: it serves in the foreground until stopped).
    func own(_ bytes: [UInt8], _ selection: String = "clipboard", target: String? = nil) throws -> Process {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("farcast-sel-\(UUID().uuidString.prefix(8))")
        try Data(bytes).write(to: file)
        addTeardownBlock { try? FileManager.default.removeItem(at: file) }
        let p = try spawn("/usr/bin/xclip", ["-quiet", "-selection", selection] + (target.map { ["-t", $0] } ?? []) + ["-i", file.path])
        // owned once xclip -o reads it back (xclip takes the selection after connecting); not
        // for INCR sizes: xclip ignores other requests while it sends one in parts, and the
        // reader's own read is the sign there
        if bytes.count < 1 << 20 { XCTAssertTrue(waitFor(5) { self.ownerReady(selection) }, "xclip owns \(selection)") }
        return p
    }

    func ownerReady(_ selection: String) -> Bool {
        let p = Process()
        // an owner stuck in a transfer answers no one: fail, never hang
        p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        p.arguments = ["5", "/usr/bin/xclip", "-o", "-selection", selection, "-t", "TARGETS"]
        p.environment = ["DISPLAY": display]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    func waitFor(_ seconds: Double, _ cond: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if cond() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return cond()
    }

    func reader(cap: Int = 10 << 20, _ sels: [ClipboardBridge.Selection] = [.clipboard, .primary]) throws -> X11SelectionReader {
        let r = try XCTUnwrap(X11SelectionReader(display: display, sdlWindow: nil, selections: sels, cap: cap, notify: {}))
        r.start()
        addTeardownBlock { r.stop() }
        return r
    }

    /// The next result, waiting up to `seconds`.
    func next(_ r: X11SelectionReader, _ seconds: Double = 10) -> (ClipboardBridge.Selection, SelectionRead)? {
        var got: [(ClipboardBridge.Selection, SelectionRead)] = []
        _ = waitFor(seconds) { got += r.takeResults(); return !got.isEmpty }
        return got.first
    }

    /// Numbered lines of mixed scripts, at least `bytes` long: a lost, doubled or reordered
    /// part shows.
    static func numbered(_ bytes: Int) -> String {
        var s = "", n = 0
        while s.utf8.count < bytes { s += "\(n): 日本語 😀 שלום café\n"; n += 1 }
        return s
    }

    func testReadsIncrSelectionsExactly() throws {
        let r = try reader()
        XCTAssertTrue(r.watching, "XFixes on Xvfb")
        // xclip goes INCR from 1 MiB (below that one property): both paths
        for size in [1 << 20, 3 << 20 + 12_345, 300_000] {
            let text = Self.numbered(size)
            let owner = try own(Array(text.utf8))
            let got = next(r)
            XCTAssertEqual(got?.0, .clipboard)
            if case .text(let t)? = got?.1 {
                XCTAssertTrue(t == text, "\(t.utf8.count) bytes read, \(text.utf8.count) set; first difference at \(zip(t.utf8, text.utf8).prefix { $0 == $1 }.count)")
            } else {
                XCTFail("\(size): \(String(describing: got))")
            }
            owner.terminate(); owner.waitUntilExit()
        }
    }

    func testNewOwnerIsReadWithoutAsking() throws {
        let r = try reader()
        let owner = try own(Array("selected 中文".utf8), "primary")
        let got = next(r)
        XCTAssertEqual(got?.0, .primary)
        XCTAssertEqual(got?.1, .text("selected 中文"))
        // asked again with nothing new set: nothing read
        r.request([.primary])
        XCTAssertNil(next(r, 0.5).map { "\($0)" })
        owner.terminate()
    }

    func testOverTheCapIsRefusedAndTheOwnerKeepsServing() throws {
        let r = try reader(cap: 1 << 20)
        // in one property (xclip's limit is 1 MiB - 1): the size is known before reading
        let small = try own(Array(repeating: UInt8(ascii: "a"), count: (1 << 20) - 1))
        XCTAssertEqual(next(r)?.1, .text(String(repeating: "a", count: (1 << 20) - 1)))
        small.terminate(); small.waitUntilExit()
        r.stop()
        let r2 = try reader(cap: 1000)
        let owner = try own(Array(repeating: UInt8(ascii: "b"), count: 5000))
        XCTAssertEqual(next(r2)?.1, .tooLarge(bytes: 5000))
        owner.terminate(); owner.waitUntilExit()
        // INCR: nothing kept past the cap, but the parts are still taken (and dropped) to the
        // end, so the size is exact and the owner is free again (xclip would wait forever)
        let text = Self.numbered(3 << 20)
        let big = try own(Array(text.utf8))
        XCTAssertEqual(next(r2)?.1, .tooLarge(bytes: text.utf8.count))
        XCTAssertTrue(big.isRunning)
        XCTAssertTrue(ownerReady("clipboard"), "the owner still serves")
    }

    func testLatin1OwnerReadThroughString() throws {
        let r = try reader([.clipboard])
        // xclip -t STRING offers only STRING: UTF8_STRING is refused, STRING is Latin-1
        let owner = try own([0x63, 0x61, 0x66, 0xE9, 0x20, 0xA9], target: "STRING")
        XCTAssertEqual(next(r)?.1, .text("café ©"))
        owner.terminate()
    }

    func testOwnerThatNeverAnswersTimesOutAndStopIsQuick() throws {
        let r = try reader([.clipboard])
        let owner = try own(Array("frozen".utf8))
        XCTAssertEqual(next(r)?.1, .text("frozen"))
        // a stopped owner answers nothing; r.request reads again only after a new owner, so a
        // second owner takes the selection and is stopped at once
        let frozen = try own(Array("frozen too".utf8))
        kill(frozen.processIdentifier, SIGSTOP)
        _ = r.takeResults()
        owner.terminate()
        let started = Date()
        let r2 = try reader([.clipboard])
        r2.request([.clipboard])
        let got = next(r2, 6)
        let took = Date().timeIntervalSince(started)
        if case .failed? = got?.1 {} else { XCTFail("\(String(describing: got))") }
        XCTAssertGreaterThan(took, 1.5)
        XCTAssertLessThan(took, 4)
        // stop while waiting on the frozen owner: returns at once
        r2.request([.clipboard])
        Thread.sleep(forTimeInterval: 0.3)
        let t0 = Date()
        XCTAssertTrue(r2.stop())
        XCTAssertLessThan(Date().timeIntervalSince(t0), 0.5)
    }
}
