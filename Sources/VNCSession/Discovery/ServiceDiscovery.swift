import CAvahi
import Foundation
import RFB

/// A VNC server (or a Mac) announced on the local network.
public struct DiscoveredService: Equatable, Sendable {
    public var name: String
    /// `_rfb._tcp` or `_workstation._tcp`.
    public var type: String
    public var domain: String
    public var hostName: String
    /// Numeric address as Avahi resolved it.
    public var address: String
    public var port: Int
    public var isIPv6: Bool

    /// What the viewer connects to: the numeric address (no mDNS resolver needed in libc) and
    /// the port; `_workstation._tcp` announces no VNC port (it is 9), so 5900 is assumed.
    public var connectAddress: String {
        let p = type == ServiceDiscovery.workstationType ? 5900 : port
        if isIPv6 {
            // a link-local address needs its interface, which HostSpec does not take: the name
            return address.lowercased().hasPrefix("fe80") ? "\(hostName)::\(p)" : "[\(address)]::\(p)"
        }
        return "\(address)::\(p)"
    }

    /// The name to show: a workstation's is "host [mac address]".
    public var displayName: String {
        guard type == ServiceDiscovery.workstationType, let b = name.lastIndex(of: "[") else { return name }
        return name[..<b].trimmingCharacters(in: .whitespaces)
    }
}

/// Browses `_rfb._tcp` and `_workstation._tcp` through avahi-daemon (its client library on the
/// system D-Bus, `DBUS_SYSTEM_BUS_ADDRESS` honoured); entries come and go as services do. Waits
/// for a daemon that is not running yet (AVAHI_CLIENT_NO_FAIL). Avahi's callbacks run on its own
/// poll thread; `services` and `stop` may be called from any thread.
public final class ServiceDiscovery: @unchecked Sendable {
    public static let rfbType = "_rfb._tcp", workstationType = "_workstation._tcp"
    static let types = [rfbType, workstationType]
    /// A LAN with more announcements than this is not shown whole (a hostile network cannot
    /// make the launcher grow without bound).
    static let maxServices = 512

    private let lock = NSLock()
    /// By what Avahi names the service (the raw bytes), which is what its removal names too.
    private var found: [Key: DiscoveredService] = [:]
    private var poll: OpaquePointer?
    private var client: OpaquePointer?
    private var browsers: [OpaquePointer] = []
    /// Called on Avahi's thread after anything changed, and with the reason when the daemon
    /// is unreachable (nil when it is back).
    private let changed: @Sendable () -> Void
    public private(set) var problem: String? {
        get { lock.withLock { _problem } }
        set { lock.withLock { _problem = newValue } }
    }
    private var _problem: String?

    /// Any thread; `changed` is called on Avahi's thread.
    public init(changed: @escaping @Sendable () -> Void) { self.changed = changed }

    deinit { stop() }

    /// Starts browsing. Throws when Avahi's poll cannot be made.
    public func start() throws {
        guard poll == nil else { return }
        guard let p = avahi_threaded_poll_new() else { throw TransportError("Avahi: cannot make a poll thread") }
        poll = p
        var err: Int32 = 0
        guard let c = makeClient(p, &err) else {
            avahi_threaded_poll_free(p)
            poll = nil
            throw TransportError("Avahi: \(String(cString: avahi_strerror(err)))")
        }
        client = c
        guard avahi_threaded_poll_start(p) == 0 else { stop(); throw TransportError("Avahi: cannot start its thread") }
    }

    /// A client that waits for the daemon when it is not there (yet, or any more).
    private func makeClient(_ p: OpaquePointer, _ err: inout Int32) -> OpaquePointer? {
        let me = Unmanaged.passUnretained(self).toOpaque()
        return avahi_client_new(avahi_threaded_poll_get(p), AVAHI_CLIENT_NO_FAIL, { c, state, me in
            guard let me else { return }
            Unmanaged<ServiceDiscovery>.fromOpaque(me).takeUnretainedValue().clientChanged(c, state)
        }, me, &err)
    }

    /// Any thread but Avahi's. Stops the thread, then frees what it used.
    public func stop() {
        guard let p = poll else { return }
        avahi_threaded_poll_stop(p)
        browsers.forEach { avahi_service_browser_free($0) }
        browsers = []
        if let c = client { avahi_client_free(c) }
        client = nil
        avahi_threaded_poll_free(p)
        poll = nil
    }

    /// What is announced now, one entry per service (IPv4 preferred), sorted by name.
    public var services: [DiscoveredService] {
        let all = lock.withLock { Array(found.values) }
        var best: [String: DiscoveredService] = [:]
        for s in all {
            let k = "\(s.name)\u{0}\(s.type)\u{0}\(s.domain)"
            if let b = best[k], !b.isIPv6 || s.isIPv6 { continue }
            best[k] = s
        }
        // a host announcing VNC itself is not listed again as a workstation
        let rfbHosts = Set(best.values.filter { $0.type == ServiceDiscovery.rfbType }.map(\.hostName))
        return best.values.filter { $0.type == ServiceDiscovery.rfbType || !rfbHosts.contains($0.hostName) }
            .sorted { ($0.displayName.lowercased(), $0.type) < ($1.displayName.lowercased(), $1.type) }
    }

    // MARK: Avahi's thread

    private func clientChanged(_ c: OpaquePointer?, _ state: AvahiClientState) {
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            problem = nil
            guard browsers.isEmpty, let c else { return }
            let me = Unmanaged.passUnretained(self).toOpaque()
            for t in ServiceDiscovery.types {
                if let b = avahi_service_browser_new(c, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), t, nil, AvahiLookupFlags(0), {
                    _, iface, proto, event, name, type, domain, _, me in
                    guard let me, let name, let type, let domain else { return }
                    Unmanaged<ServiceDiscovery>.fromOpaque(me).takeUnretainedValue()
                        .browsed(iface, proto, event, name, type, domain)
                }, me) {
                    browsers.append(b)
                }
            }
        case AVAHI_CLIENT_FAILURE, AVAHI_CLIENT_CONNECTING:
            // the daemon went away (or is not there yet): what it told us is no longer known
            browsers.forEach { avahi_service_browser_free($0) }
            browsers = []
            lock.withLock { found.removeAll() }
            problem = "avahi-daemon is not running: hosts on the network are not shown"
            changed()
            // a client whose daemon went away stays failed: a new one (waiting for the daemon
            // to come back) once this callback has returned
            if state == AVAHI_CLIENT_FAILURE { scheduleReconnect() }
        default:
            break
        }
    }

    private func scheduleReconnect() {
        guard let p = poll, let api = avahi_threaded_poll_get(p) else { return }
        var tv = timeval()
        avahi_elapse_time(&tv, 1000, 0)
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = api.pointee.timeout_new(api, &tv, { t, me in
            guard let me else { return }
            Unmanaged<ServiceDiscovery>.fromOpaque(me).takeUnretainedValue().reconnect(t)
        }, me)
    }

    private func reconnect(_ t: OpaquePointer?) {
        guard let p = poll, let api = avahi_threaded_poll_get(p) else { return }
        if let t { api.pointee.timeout_free(t) }
        if let c = client { avahi_client_free(c) }
        var err: Int32 = 0
        client = makeClient(p, &err)
        if client == nil { scheduleReconnect() }
    }

    /// An entry as Avahi names it: the announced bytes as they came, not the cleaned text shown,
    /// so a removal finds what was stored (two names that clean to the same text stay two).
    struct Key: Hashable {
        var iface: AvahiIfIndex, proto: AvahiProtocol
        var name: [UInt8], type: [UInt8], domain: [UInt8]

        init(_ iface: AvahiIfIndex, _ proto: AvahiProtocol, _ name: UnsafePointer<CChar>,
             _ type: UnsafePointer<CChar>, _ domain: UnsafePointer<CChar>) {
            func bytes(_ p: UnsafePointer<CChar>) -> [UInt8] {
                Array(UnsafeRawBufferPointer(start: p, count: strlen(p)).prefix(ServiceDiscovery.maxNameBytes))
            }
            self.iface = iface; self.proto = proto
            self.name = bytes(name); self.type = bytes(type); self.domain = bytes(domain)
        }
    }

    /// DNS's bound on a name (RFC 1035: 255 bytes); Avahi's are shorter still.
    static let maxNameBytes = 255

    private func browsed(_ iface: AvahiIfIndex, _ proto: AvahiProtocol, _ event: AvahiBrowserEvent,
                         _ name: UnsafePointer<CChar>, _ type: UnsafePointer<CChar>, _ domain: UnsafePointer<CChar>) {
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let client else { return }
            let me = Unmanaged.passUnretained(self).toOpaque()
            // the resolver frees itself in its callback
            _ = avahi_service_resolver_new(client, iface, proto, name, type, domain, proto, AvahiLookupFlags(0), {
                r, iface, proto, event, name, type, domain, host, addr, port, _, _, me in
                defer { if let r { avahi_service_resolver_free(r) } }
                guard let me, event == AVAHI_RESOLVER_FOUND, let name, let type, let domain, let host, let addr else { return }
                var buf = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
                avahi_address_snprint(&buf, buf.count, addr)
                let address = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let s = DiscoveredService(name: ServiceDiscovery.clean(name), type: ServiceDiscovery.clean(type),
                                          domain: ServiceDiscovery.clean(domain), hostName: ServiceDiscovery.clean(host),
                                          address: address, port: Int(port),
                                          isIPv6: addr.pointee.proto == AvahiProtocol(AVAHI_PROTO_INET6))
                Unmanaged<ServiceDiscovery>.fromOpaque(me).takeUnretainedValue().resolved(Key(iface, proto, name, type, domain), s)
            }, me)
        case AVAHI_BROWSER_REMOVE:
            let k = Key(iface, proto, name, type, domain)
            let removed = lock.withLock { found.removeValue(forKey: k) != nil }
            if removed { changed() }
        default:
            break
        }
    }

    /// Names come from anyone on the network: shown as a server's text is (no control
    /// characters, line breaks or reordering marks), within DNS's own bound.
    static func clean(_ p: UnsafePointer<CChar>) -> String {
        ServerText.printable(String(cString: p), limit: maxNameBytes)
    }

    private func resolved(_ k: Key, _ s: DiscoveredService) {
        let added: Bool = lock.withLock {
            guard found[k] != nil || found.count < ServiceDiscovery.maxServices else { return false }
            found[k] = s
            return true
        }
        if added { changed() }
    }
}
