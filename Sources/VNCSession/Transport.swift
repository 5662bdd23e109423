import Foundation
#if canImport(Glibc)
import Glibc
#endif

public struct TransportError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ d: String) { description = d }
}

/// A connected TCP socket (blocking, TCP_NODELAY). Used by the session thread only.
public final class TCPTransport: @unchecked Sendable {
    public let fd: Int32
    public let peer: String

    init(fd: Int32, peer: String) { self.fd = fd; self.peer = peer }
    deinit { close() }

    private var closed = false
    public func close() {
        if !closed { closed = true; _ = Glibc.close(fd) }
    }

    /// Resolves `spec.host` and tries every address it resolves to, in the resolver's order
    /// (IPv6 and IPv4 alike), each with `timeout` seconds to connect.
    public static func connect(_ spec: HostSpec, timeout: Double = 10) throws -> TCPTransport {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var res: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(spec.host, String(spec.port), &hints, &res)
        if rc != 0 || res == nil {
            // AI_ADDRCONFIG hides ::1 when only loopback exists; retry without it
            hints.ai_flags = 0
            let rc2 = getaddrinfo(spec.host, String(spec.port), &hints, &res)
            if rc2 != 0 {
                throw TransportError("cannot resolve '\(spec.host)': \(String(cString: gai_strerror(rc2)))")
            }
        }
        defer { freeaddrinfo(res) }
        var errors: [String] = []
        var ai = res
        while let a = ai {
            let addr = describe(a.pointee.ai_addr, a.pointee.ai_addrlen)
            do {
                let fd = try connectOne(a.pointee, timeout: timeout)
                return TCPTransport(fd: fd, peer: addr)
            } catch let e as TransportError {
                errors.append("\(addr): \(e.description)")
            }
            ai = a.pointee.ai_next
        }
        throw TransportError("cannot connect to \(spec): " + (errors.isEmpty ? "no addresses" : errors.joined(separator: "; ")))
    }

    static func describe(_ sa: UnsafeMutablePointer<sockaddr>?, _ len: socklen_t) -> String {
        guard let sa else { return "?" }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST)), serv = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        if getnameinfo(sa, len, &host, socklen_t(host.count), &serv, socklen_t(serv.count), NI_NUMERICHOST | NI_NUMERICSERV) == 0 {
            let h = cstr(host), sv = cstr(serv)
            return h.contains(":") ? "[\(h)]:\(sv)" : "\(h):\(sv)"
        }
        return "?"
    }

    private static func connectOne(_ a: addrinfo, timeout: Double) throws -> Int32 {
        let fd = socket(a.ai_family, a.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), a.ai_protocol)
        if fd < 0 { throw TransportError(String(cString: strerror(errno))) }
        // Non-blocking connect so a black-holed address costs `timeout`, not the kernel's minutes.
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var rc = Glibc.connect(fd, a.ai_addr, a.ai_addrlen)
        if rc != 0 && errno == EINPROGRESS {
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            rc = poll(&p, 1, Int32(timeout * 1000))
            if rc == 0 { Glibc.close(fd); throw TransportError("timed out after \(Int(timeout)) s") }
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
            if err != 0 { Glibc.close(fd); throw TransportError(String(cString: strerror(err))) }
        } else if rc != 0 {
            let e = errno; Glibc.close(fd); throw TransportError(String(cString: strerror(e)))
        }
        _ = fcntl(fd, F_SETFL, flags)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// Writes all of `bytes`.
    public func send(_ bytes: [UInt8]) throws {
        var off = 0
        try bytes.withUnsafeBytes { b in
            guard let base = b.baseAddress else { return }
            while off < b.count {
                let n = Glibc.send(fd, base + off, b.count - off, Int32(MSG_NOSIGNAL))
                if n < 0 { if errno == EINTR { continue }; throw TransportError("send failed: \(String(cString: strerror(errno)))") }
                off += n
            }
        }
    }

    /// Waits up to `timeout` seconds for readable data (negative: forever). True when readable.
    public func waitReadable(timeout: Double) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ms = timeout < 0 ? -1 : Int32(min(timeout * 1000, 3_600_000))
        while true {
            let rc = poll(&p, 1, ms)
            if rc < 0 && errno == EINTR { continue }
            return rc > 0
        }
    }

    /// Reads into `buf`; 0 means the peer closed.
    public func recv(into buf: UnsafeMutableRawPointer, capacity: Int) throws -> Int {
        while true {
            let n = Glibc.recv(fd, buf, capacity, 0)
            if n < 0 { if errno == EINTR { continue }; throw TransportError("receive failed: \(String(cString: strerror(errno)))") }
            return n
        }
    }
}

/// A NUL-terminated C buffer as a String.
func cstr(_ a: [CChar]) -> String {
    String(decoding: a.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
