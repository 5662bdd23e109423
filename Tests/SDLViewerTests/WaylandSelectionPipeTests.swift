import Foundation
import XCTest
import CWaylandSelection
@testable import SDLViewer

/// The Wayland selections' pipe transfers on real pipes, with the owner or reader played by the
/// test (no compositor here can host a selection owner that never writes or writes forever:
/// wl-copy reads all of its input before it offers it): never a hang, never more than the cap,
/// never a SIGPIPE.
final class WaylandSelectionPipeTests: XCTestCase {
    func pipePair() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw XCTSkip("no pipe") }
        return (fds[0], fds[1])
    }

    func testWholeTextIsRead() throws {
        let p = try pipePair()
        let text = String(repeating: "0123456789abcdef 日本 😀 שלום\n", count: 40_000)  // > 1 MiB
        let bytes = Array(text.utf8)
        let writer = Thread { _ = bytes.withUnsafeBytes { fc_wlsel_write_fd(p.write, $0.baseAddress, $0.count, 2000) }; close(p.write) }
        writer.start()
        let r = WaylandSelections.readPipe(p.read, cap: 10 << 20, stall: 2, stopping: { false })
        XCTAssertEqual(r, .text(text))
    }

    /// An owner that writes forever: refused at the cap, at once, the pipe closed on it.
    func testEndlessOwnerStopsAtTheCap() throws {
        let p = try pipePair()
        let stop = Atomic(false)
        let writer = Thread {
            let chunk = [UInt8](repeating: 0x61, count: 65536)
            while !stop.value {
                if chunk.withUnsafeBytes({ fc_wlsel_write_fd(p.write, $0.baseAddress, $0.count, 500) }) < chunk.count { break }
            }
            close(p.write)
        }
        writer.start()
        let start = Date()
        let r = WaylandSelections.readPipe(p.read, cap: 1 << 20, stall: 2, stopping: { false })
        stop.value = true
        guard case .tooLarge(let n) = r else { return XCTFail("\(r)") }
        XCTAssertGreaterThan(n, 1 << 20)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    /// An owner that never writes (nor closes): given up after the stall time, not waited for.
    func testSilentOwnerIsGivenUp() throws {
        let p = try pipePair()
        defer { close(p.write) }
        let start = Date()
        let r = WaylandSelections.readPipe(p.read, cap: 1 << 20, stall: 0.5, stopping: { false })
        guard case .failed = r else { return XCTFail("\(r)") }
        XCTAssertLessThan(Date().timeIntervalSince(start), 3)
    }

    /// A reader that goes away mid-transfer: the writer returns short, and the process lives
    /// (SIGPIPE is held off on the writing thread).
    func testReaderGoneIsNoSIGPIPE() throws {
        let p = try pipePair()
        close(p.read)
        let bytes = [UInt8](repeating: 0x62, count: 1 << 20)
        let n = bytes.withUnsafeBytes { fc_wlsel_write_fd(p.write, $0.baseAddress, $0.count, 500) }
        close(p.write)
        XCTAssertEqual(n, 0)
    }

    /// A reader that stops reading: the writer gives up after the stall time.
    func testStalledReaderIsGivenUp() throws {
        let p = try pipePair()
        defer { close(p.read) }
        let bytes = [UInt8](repeating: 0x63, count: 4 << 20)
        let start = Date()
        let n = bytes.withUnsafeBytes { fc_wlsel_write_fd(p.write, $0.baseAddress, $0.count, 300) }
        close(p.write)
        XCTAssertLessThan(n, bytes.count)
        XCTAssertLessThan(Date().timeIntervalSince(start), 3)
    }
}

private final class Atomic<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var v: T
    init(_ v: T) { self.v = v }
    var value: T {
        get { lock.withLock { v } }
        set { lock.withLock { v = newValue } }
    }
}
