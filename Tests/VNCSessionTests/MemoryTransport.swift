import Foundation
import RFB
@testable import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// A transport whose other end is the test: bytes the "server" writes are buffered in memory,
/// bytes the session sends are collected. A pipe only signals readability, so the session's
/// poll works as with a socket.
final class MemoryTransport: Transport, @unchecked Sendable {
    let peer = "memory"
    private let cond = NSCondition()
    private var toClient: [UInt8] = []
    private var fromClient: [UInt8] = []
    private var serverClosed = false
    private var interrupted = false
    private(set) var closed = false
    private let signal: (read: Int32, write: Int32)

    init() {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        signal = (fds[0], fds[1])
    }
    deinit { Glibc.close(signal.read); Glibc.close(signal.write) }

    var fd: Int32 { signal.read }

    // MARK: the session's side

    func send(_ bytes: [UInt8]) throws {
        cond.lock(); defer { cond.unlock() }
        if interrupted || closed { throw TransportError("closed") }
        fromClient += bytes
        cond.broadcast()
    }

    func recv(into buf: UnsafeMutableRawPointer, capacity: Int) throws -> Int {
        cond.lock(); defer { cond.unlock() }
        if interrupted { throw TransportError("interrupted") }
        // the pipe holds a byte exactly when bytes or the close arrived since the last drain
        // (both change under this lock), so a readable poll never finds nothing here
        var b = [UInt8](repeating: 0, count: 64)
        while Glibc.read(signal.read, &b, b.count) > 0 {}
        while toClient.isEmpty && !serverClosed && !interrupted { cond.wait() }
        if interrupted { throw TransportError("interrupted") }
        let n = min(capacity, toClient.count)
        if n == 0 { return 0 }
        toClient.withUnsafeBytes { buf.copyMemory(from: $0.baseAddress!, byteCount: n) }
        toClient.removeFirst(n)
        if !toClient.isEmpty || serverClosed { poke() }
        return n
    }

    func close() { cond.lock(); closed = true; cond.broadcast(); cond.unlock() }

    func interrupt() { cond.lock(); interrupted = true; poke(); cond.broadcast(); cond.unlock() }

    private func poke() { var one: UInt8 = 1; _ = Glibc.write(signal.write, &one, 1) }

    // MARK: the test's (server's) side

    func serverSend(_ bytes: [UInt8]) {
        cond.lock(); toClient += bytes; poke(); cond.broadcast(); cond.unlock()
    }

    func serverClose() { cond.lock(); serverClosed = true; poke(); cond.broadcast(); cond.unlock() }

    /// How many bytes the server has not read yet.
    var unreadByServer: Int { cond.withLock { toClient.count } }

    /// Waits for `n` bytes from the session; nil on timeout.
    func serverReceive(_ n: Int, timeout: Double = 5) -> [UInt8]? {
        let until = Date(timeIntervalSinceNow: timeout)
        cond.lock(); defer { cond.unlock() }
        while fromClient.count < n { if !cond.wait(until: until) { return nil } }
        let out = Array(fromClient.prefix(n))
        fromClient.removeFirst(n)
        return out
    }

    /// Returns bytes taken with `serverReceiveAll` to the front of what the session sent.
    func putBack(_ b: [UInt8]) { cond.withLock { fromClient = b + fromClient } }

    /// Everything the session sent so far.
    func serverReceiveAll() -> [UInt8] { cond.withLock { defer { fromClient = [] }; return fromClient } }
}

/// The server's side of a handshake, byte by byte (RFB 3.8).
enum FakeServer {
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }

    /// 32 bpp little-endian true colour, red shift 16 (the viewer's own format).
    static let pixelFormat: [UInt8] = [32, 24, 0, 1] + be16(255) + be16(255) + be16(255) + [16, 8, 0, 0, 0, 0]

    static func serverInit(width: Int, height: Int, name: String = "fake") -> [UInt8] {
        be16(width) + be16(height) + pixelFormat + be32(name.utf8.count) + Array(name.utf8)
    }

    /// Version and security type None up to ServerInit; returns false when the session did not
    /// answer as expected.
    static func handshakeNone(_ t: MemoryTransport, width: Int, height: Int) -> Bool {
        t.serverSend(Array("RFB 003.008\n".utf8))
        guard t.serverReceive(12) == Array("RFB 003.008\n".utf8) else { return false }
        t.serverSend([1, 1])                     // one type: None
        guard t.serverReceive(1) == [1] else { return false }
        t.serverSend(be32(0))                    // SecurityResult OK
        guard t.serverReceive(1) != nil else { return false }   // ClientInit
        t.serverSend(serverInit(width: width, height: height))
        return true
    }

    /// One update of one RRE rect: background `pixel` over `w`x`h` at the origin, no subrects.
    static func rreFill(width w: Int, height h: Int, pixel: UInt32) -> [UInt8] {
        [0, 0] + be16(1) + be16(0) + be16(0) + be16(w) + be16(h) + be32(2) + be32(0)
            + [UInt8(pixel & 0xff), UInt8(pixel >> 8 & 0xff), UInt8(pixel >> 16 & 0xff), 0]
    }
}
