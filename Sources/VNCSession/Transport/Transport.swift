import Foundation
import RFB
#if canImport(Glibc)
import Glibc
#endif

public struct TransportError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ d: String) { description = d }
}

/// A connected byte stream the session reads and writes (session thread only, except
/// `interrupt`). Sockets are the real ones; tests drive a session over an in-memory one.
public protocol Transport: AnyObject, Sendable {
    /// The descriptor to poll for readability.
    var fd: Int32 { get }
    /// Who is on the other end, for messages.
    var peer: String { get }
    func send(_ bytes: [UInt8]) throws
    /// 0 means the peer closed.
    func recv(into buf: UnsafeMutableRawPointer, capacity: Int) throws -> Int
    func close()
    /// Any thread: wakes the session thread blocked on this transport; it then fails or ends.
    func interrupt()
    /// Any thread: wakes a thread blocked reading, and leaves sending possible (a goodbye).
    func interruptReads()
    /// Sends without blocking, all or nothing that cannot go at once (a goodbye, best effort).
    func trySend(_ bytes: [UInt8]) -> Bool
    /// Waits for readable data or for `wake` (a pipe's read end) to become readable.
    func waitReadable(timeout: Double, orWake wake: Int32) -> (readable: Bool, woken: Bool)
}

extension Transport {
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

    public func interrupt() {}
    public func interruptReads() { interrupt() }
    public func trySend(_ bytes: [UInt8]) -> Bool { (try? send(bytes)) != nil }

    /// Polls `fd` and `wake` together.
    public func waitReadable(timeout: Double, orWake wake: Int32) -> (readable: Bool, woken: Bool) {
        var p = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let ms = timeout < 0 ? -1 : Int32(min(timeout * 1000, 3_600_000))
        while true {
            let rc = poll(&p, 2, ms)
            if rc < 0 && errno == EINTR { continue }
            guard rc > 0 else { return (false, false) }
            return (p[0].revents != 0, p[1].revents != 0)
        }
    }
}

/// Any connected stream socket: TCP, a unix socket, or our end of a socketpair to `ssh -W`.
public final class SocketTransport: Transport, @unchecked Sendable {
    public let fd: Int32
    public let peer: String
    /// A helper process carrying the stream (ssh), ended with the transport.
    private let child: Process?
    private let closeLock = NSLock()
    private var closed = false

    init(fd: Int32, peer: String, child: Process? = nil) {
        self.fd = fd; self.peer = peer; self.child = child
    }
    deinit { close() }

    public func close() {
        let doIt: Bool = closeLock.withLock { defer { closed = true }; return !closed }
        guard doIt else { return }
        _ = Glibc.close(fd)
        if let c = child, c.isRunning { c.terminate() }
    }

    /// Wakes a thread blocked on this socket (poll/recv/send) by shutting both directions
    /// down. Under the close lock: once closed, the descriptor number may be someone else's.
    public func interrupt() { closeLock.withLock { if !closed { _ = shutdown(fd, Int32(SHUT_RDWR)) } } }

    /// Wakes a reader (recv returns 0, poll reports readable); sending still works.
    public func interruptReads() { closeLock.withLock { if !closed { _ = shutdown(fd, Int32(SHUT_RD)) } } }

    public func trySend(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { b in
            guard let base = b.baseAddress else { return true }
            return Glibc.send(fd, base, b.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) == b.count
        }
    }

    public func send(_ bytes: [UInt8]) throws {
        var off = 0
        try bytes.withUnsafeBytes { b in
            guard let base = b.baseAddress else { return }
            while off < b.count {
                let n = Glibc.send(fd, base + off, b.count - off, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw TransportError("send failed: \(String(cString: strerror(errno)))")
                }
                off += n
            }
        }
    }

    public func recv(into buf: UnsafeMutableRawPointer, capacity: Int) throws -> Int {
        while true {
            let n = Glibc.recv(fd, buf, capacity, 0)
            if n < 0 {
                if errno == EINTR { continue }
                throw TransportError("receive failed: \(String(cString: strerror(errno)))")
            }
            return n
        }
    }
}

/// Kept for callers that think in TCP terms.
public typealias TCPTransport = SocketTransport

extension SocketTransport {
    /// Resolves `spec.host` and connects to whichever of its addresses answers first: IPv6 and
    /// IPv4 interleaved, a new attempt started every `stagger` seconds while earlier ones are
    /// still pending (Happy Eyeballs, RFC 8305), all bounded by `timeout`.
    public static func connect(_ spec: HostSpec, timeout: Double = 10, stagger: Double = 0.25) throws -> SocketTransport {
        let addrs = try resolve(spec)
        let deadline = monotonicSeconds() + timeout
        var pending: [(fd: Int32, addr: ResolvedAddress)] = []
        var errors: [String] = []
        var next = 0
        defer { for p in pending { Glibc.close(p.fd) } }
        while true {
            // start the next attempt now if nothing is pending, or every `stagger` seconds
            if next < addrs.count {
                let a = addrs[next]; next += 1
                switch startConnect(a) {
                case .connected(let fd):
                    return finish(fd, peer: a.text)
                case .pending(let fd):
                    pending.append((fd, a))
                case .failed(let why):
                    errors.append("\(a.text): \(why)")
                    continue
                }
            }
            if pending.isEmpty {
                throw TransportError("cannot connect to \(spec): " + (errors.isEmpty ? "no addresses" : errors.joined(separator: "; ")))
            }
            let left = deadline - monotonicSeconds()
            if left <= 0 {
                errors += pending.map { "\($0.addr.text): timed out after \(Int(timeout.rounded())) s" }
                throw TransportError("cannot connect to \(spec): " + errors.joined(separator: "; "))
            }
            let wait = next < addrs.count ? min(stagger, left) : left
            var pfds = pending.map { pollfd(fd: $0.fd, events: Int16(POLLOUT), revents: 0) }
            let rc = poll(&pfds, nfds_t(pfds.count), Int32(max(1, wait * 1000)))
            if rc < 0 && errno != EINTR { throw TransportError("poll failed: \(String(cString: strerror(errno)))") }
            var i = 0
            while i < pending.count {
                if pfds[i].revents != 0 {
                    var err: Int32 = 0
                    var len = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(pending[i].fd, SOL_SOCKET, SO_ERROR, &err, &len)
                    let p = pending.remove(at: i); pfds.remove(at: i)
                    if err == 0 { return finish(p.fd, peer: p.addr.text) }
                    errors.append("\(p.addr.text): \(String(cString: strerror(err)))")
                    Glibc.close(p.fd)
                } else { i += 1 }
            }
        }
    }

    struct ResolvedAddress {
        var family: Int32, type: Int32, proto: Int32
        var storage: sockaddr_storage
        var length: socklen_t
        var text: String
    }

    /// Every address the name resolves to, IPv6 and IPv4 interleaved (first family first).
    static func resolve(_ spec: HostSpec) throws -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var res: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(spec.host, String(spec.port), &hints, &res)
        if rc != 0 {
            throw TransportError("cannot resolve '\(spec.host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(res) }
        var v6: [ResolvedAddress] = [], v4: [ResolvedAddress] = []
        var firstFamily: Int32 = 0
        var ai = res
        while let a = ai {
            var st = sockaddr_storage()
            let len = a.pointee.ai_addrlen
            if let src = a.pointee.ai_addr {
                withUnsafeMutableBytes(of: &st) { dst in
                    dst.copyMemory(from: UnsafeRawBufferPointer(start: src, count: min(Int(len), dst.count)))
                }
            }
            let r = ResolvedAddress(family: a.pointee.ai_family, type: a.pointee.ai_socktype, proto: a.pointee.ai_protocol,
                                    storage: st, length: len, text: describe(a.pointee.ai_addr, len))
            if firstFamily == 0 { firstFamily = r.family }
            if r.family == AF_INET6 { v6.append(r) } else { v4.append(r) }
            ai = a.pointee.ai_next
        }
        // interleave, starting with the family the resolver put first
        var (a, b) = firstFamily == AF_INET ? (v4, v6) : (v6, v4)
        var out: [ResolvedAddress] = []
        while !a.isEmpty || !b.isEmpty {
            if !a.isEmpty { out.append(a.removeFirst()) }
            if !b.isEmpty { out.append(b.removeFirst()) }
        }
        return out
    }

    enum Start { case connected(Int32), pending(Int32), failed(String) }

    static func startConnect(_ a: ResolvedAddress) -> Start {
        let fd = socket(a.family, a.type | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), a.proto)
        if fd < 0 { return .failed(String(cString: strerror(errno))) }
        var st = a.storage
        let rc = withUnsafePointer(to: &st) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, a.length) } }
        if rc == 0 { return .connected(fd) }
        if errno == EINPROGRESS { return .pending(fd) }
        let why = String(cString: strerror(errno))
        Glibc.close(fd)
        return .failed(why)
    }

    /// Back to blocking, TCP_NODELAY (small input events must not wait for Nagle), keepalive.
    static func finish(_ fd: Int32, peer: String) -> SocketTransport {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, socklen_t(MemoryLayout<Int32>.size))
        return SocketTransport(fd: fd, peer: peer)
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

    /// A unix domain socket (e.g. Xvnc's -rfbunixpath).
    public static func connectUnix(path: String) throws -> SocketTransport {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let cap = MemoryLayout.size(ofValue: addr.sun_path)
        guard !bytes.isEmpty, bytes.count < cap else {
            throw TransportError("unix socket path '\(path)' is empty or longer than \(cap - 1) bytes")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { p in
            for (i, b) in bytes.enumerated() { p[i] = b }
            p[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if fd < 0 { throw TransportError("socket: \(String(cString: strerror(errno)))") }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc != 0 {
            let why = String(cString: strerror(errno))
            Glibc.close(fd)
            throw TransportError("cannot connect to unix:\(path): \(why)")
        }
        return SocketTransport(fd: fd, peer: "unix:\(path)")
    }

    /// Through an SSH gateway with the system client (`ssh -W host:port gateway`), so the
    /// user's ~/.ssh/config, agent and keys apply. `sshCommand` is the client and its fixed
    /// options (FARCAST_SSH, default "ssh"). The child's stdin/stdout are our socketpair's other end.
    /// `searchPath` is where a command without a slash is looked for (the command line's PATH).
    public static func connectVia(gateway: String, target: HostSpec, sshCommand: [String] = ["ssh"],
                                  searchPath: String = ChildProcess.defaultSearchPath,
                                  log: (String) -> Void = { _ in }) throws -> SocketTransport {
        guard let exe = sshCommand.first else { throw TransportError("empty ssh command") }
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw TransportError("socketpair: \(String(cString: strerror(errno)))")
        }
        try checkGateway(gateway)
        let (gwHost, gwPort) = splitGateway(gateway)
        guard !target.host.hasPrefix("-") else { throw TransportError("the host '\(target.host)' is not a host name") }
        var args = Array(sshCommand.dropFirst())
        if let p = gwPort { args += ["-p", String(p)] }
        // -W host:port, with IPv6 literals in brackets
        let dest = target.host.contains(":") ? "[\(target.host)]:\(target.port)" : "\(target.host):\(target.port)"
        args += ["-o", "ExitOnForwardFailure=yes", "-W", dest, "--", gwHost]
        let path = exe.hasPrefix("/") ? exe : (ChildProcess.find(exe, searchPath: searchPath) ?? "/usr/bin/\(exe)")
        let theirs = FileHandle(fileDescriptor: fds[1], closeOnDealloc: false)
        log("via: \(([exe] + args).joined(separator: " "))")
        let p: Process
        do { p = try ChildProcess.start(path, args, stdin: .handle(theirs), stdout: .handle(theirs)) } catch {
            Glibc.close(fds[0]); Glibc.close(fds[1])
            throw TransportError("cannot start ssh (\(exe)): \(error.localizedDescription)")
        }
        Glibc.close(fds[1])
        return SocketTransport(fd: fds[0], peer: "\(target) via \(gateway)", child: p)
    }

    /// Refuses a gateway ssh would not take as a host: one starting with '-' would be read as
    /// an option (-oProxyCommand=...), and spaces or control characters are no host's. The
    /// command line checks it while parsing, the transport again before ssh starts.
    public static func checkGateway(_ gateway: String) throws {
        let (gwHost, _) = splitGateway(gateway)
        guard !gwHost.isEmpty, !gwHost.hasPrefix("-"),
              !gwHost.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7f }) else {
            throw ConfigError("the --via gateway '\(ServerText.printable(gateway, limit: 200))' is not a host name")
        }
    }

    /// "[user@]host[:port]" → ("[user@]host", port)
    static func splitGateway(_ g: String) -> (String, Int?) {
        if let i = g.lastIndex(of: ":"), !g.contains("["), g.filter({ $0 == ":" }).count == 1,
           let p = Int(g[g.index(after: i)...]) {
            return (String(g[..<i]), p)
        }
        return (g, nil)
    }
}

/// Reverse connections: wait for a server to connect to us (vncviewer -listen).
public final class Listener: @unchecked Sendable {
    public let fd: Int32
    public let port: Int

    /// Listens on all addresses (IPv6 and IPv4) or on loopback only, port 5500 by default.
    public init(port: Int = 5500, loopbackOnly: Bool = false) throws {
        var fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var one: Int32 = 1, zero: Int32 = 0
        if fd >= 0 {
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(4))
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(4))
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = in_port_t(UInt16(port).bigEndian)
            a.sin6_addr = loopbackOnly ? in6addr_loopback : in6addr_any
            let rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
            if rc != 0 || loopbackOnly { Glibc.close(fd); fd = -1 }   // loopback-only: IPv4 below
        }
        if fd < 0 {
            // no IPv6 (or loopback wanted for IPv4 clients): IPv4
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(4))
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = in_port_t(UInt16(port).bigEndian)
            a.sin_addr.s_addr = loopbackOnly ? inet_addr("127.0.0.1") : INADDR_ANY
            let rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            if rc != 0 {
                let why = String(cString: strerror(errno))
                Glibc.close(fd)
                throw TransportError("cannot listen on port \(port): \(why)")
            }
        }
        guard Glibc.listen(fd, 4) == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(fd)
            throw TransportError("cannot listen on port \(port): \(why)")
        }
        self.fd = fd
        self.port = port
    }
    deinit { Glibc.close(fd) }

    /// Waits up to `timeout` seconds (negative: forever) for one server to connect.
    public func accept(timeout: Double = -1) throws -> SocketTransport {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let rc = poll(&p, 1, timeout < 0 ? -1 : Int32(timeout * 1000))
        if rc == 0 { throw TransportError("no server connected to port \(port) within \(Int(timeout)) s") }
        var st = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let c = withUnsafeMutablePointer(to: &st) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(fd, $0, &len) } }
        if c < 0 { throw TransportError("accept failed: \(String(cString: strerror(errno)))") }
        _ = fcntl(c, F_SETFD, FD_CLOEXEC)
        let peer = withUnsafeMutablePointer(to: &st) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketTransport.describe($0, len) } }
        var one: Int32 = 1
        setsockopt(c, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(4))
        return SocketTransport(fd: c, peer: peer)
    }
}

/// A NUL-terminated C buffer as a String.
func cstr(_ a: [CChar]) -> String {
    String(decoding: a.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
