import XCTest
import Foundation
@testable import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// Transport behaviour against real sockets on loopback (no VNC server needed).
final class TransportTests: XCTestCase {
    /// Listens on one loopback address family; returns fd and port.
    func listen(v6: Bool) throws -> (Int32, Int) {
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(4))
        if v6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(4))
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_addr = in6addr_loopback
            let rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
            if rc != 0 { close(fd); throw XCTSkip("no IPv6 loopback here") }
        } else {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            XCTAssertEqual(rc, 0)
        }
        Glibc.listen(fd, 4)
        var ss = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &ss) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &len) } }
        let port: Int = withUnsafePointer(to: &ss) { p in
            v6 ? p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
               : p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
        addTeardownBlock { close(fd) }
        return (fd, port)
    }

    func testIPv4AndIPv6Literals() throws {
        let (_, p4) = try listen(v6: false)
        let t4 = try TCPTransport.connect(try HostSpec.parse("127.0.0.1::\(p4)"))
        XCTAssertEqual(t4.peer, "127.0.0.1:\(p4)")
        var nodelay: Int32 = 0
        var len = socklen_t(4)
        getsockopt(t4.fd, Int32(IPPROTO_TCP), TCP_NODELAY, &nodelay, &len)
        XCTAssertEqual(nodelay, 1, "TCP_NODELAY is set")
        let (_, p6) = try listen(v6: true)
        let t6 = try TCPTransport.connect(try HostSpec.parse("[::1]::\(p6)"))
        XCTAssertEqual(t6.peer, "[::1]:\(p6)")
    }

    /// "localhost" resolves to ::1 and 127.0.0.1: a server on only one of them is still reached.
    func testEveryResolvedAddressIsTried() throws {
        let (_, p4) = try listen(v6: false)
        let t = try TCPTransport.connect(HostSpec(host: "localhost", port: p4))
        XCTAssertEqual(t.peer, "127.0.0.1:\(p4)")
    }

    func testRefusedAndUnresolvableGiveClearErrors() throws {
        let (fd, port) = try listen(v6: false)
        close(fd)   // nobody listens there now
        XCTAssertThrowsError(try TCPTransport.connect(HostSpec(host: "127.0.0.1", port: port))) {
            XCTAssertTrue("\($0)".contains("cannot connect to 127.0.0.1::\(port)"), "\($0)")
            XCTAssertTrue("\($0)".contains("refused"), "\($0)")
        }
        XCTAssertThrowsError(try TCPTransport.connect(HostSpec(host: "no-such-host.invalid", port: 5900))) {
            XCTAssertTrue("\($0)".contains("cannot resolve 'no-such-host.invalid'"), "\($0)")
        }
    }
}
