import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A real avahi-daemon in a network namespace of its own (a veth pair, 10.77.0.1/24 on `v0`,
/// and a private /run/avahi-daemon in a mount namespace of its own), talking on a D-Bus system
/// bus of the test's own (a dbus-daemon with a config written here). Programs join the network
/// with `inNamespace`; D-Bus clients anywhere reach the daemon through `busAddress`.
final class AvahiNetwork: @unchecked Sendable {
    static let address = "10.77.0.1"
    let dir: URL
    let busAddress: String
    private let holder: ChildProcess
    private let bus: ChildProcess
    private(set) var daemon: ChildProcess?
    private var holderPid: Int32 { holder.pid }

    static func skipUnlessAvailable() throws {
        for t in ["avahi-daemon", "avahi-publish", "dbus-daemon", "unshare", "nsenter", "ip"] where InteropTools.path(t) == nil {
            let msg = "\(t) missing: run scripts/install-deps.sh"
            if ProcessInfo.processInfo.environment["FARCAST_INTEROP_REQUIRED"] == "1" { throw HarnessError(msg) }
            throw XCTSkip(msg)
        }
        guard geteuid() == 0 else { throw XCTSkip("network namespaces need root") }
    }

    init(dir: URL) throws {
        try AvahiNetwork.skipUnlessAvailable()
        self.dir = dir
        try FileManager.default.createDirectory(atPath: "/run/avahi-daemon", withIntermediateDirectories: true)
        let ready = dir.appendingPathComponent("netns-ready").path
        // the namespaces live as long as this shell (it ends with the test: setpriv's pdeathsig)
        let setup = """
            set -e
            mount -t tmpfs tmpfs /run/avahi-daemon
            ip link set lo up
            ip link add v0 type veth peer name v1
            ip addr add \(AvahiNetwork.address)/24 dev v0
            ip link set v0 multicast on up
            ip link set v1 up
            touch \(ready)
            exec sleep 100000
            """
        holder = try ChildProcess(name: "netns", executable: InteropTools.need("unshare"), arguments: ["-n", "-m", "sh", "-c", setup],
                                  logURL: dir.appendingPathComponent("netns.log"))
        guard poll(timeout: 10, { FileManager.default.fileExists(atPath: ready) }) else {
            holder.stop()
            throw HarnessError("network namespace not made: \(holder.logTail())")
        }
        let socket = dir.appendingPathComponent("system_bus_socket").path
        busAddress = "unix:path=\(socket)"
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>\(busAddress)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*"/>
                <allow receive_sender="*"/>
              </policy>
            </busconfig>
            """.write(to: dir.appendingPathComponent("bus.conf"), atomically: true, encoding: .utf8)
        bus = try ChildProcess(name: "dbus-daemon", executable: InteropTools.need("dbus-daemon"),
                               arguments: ["--config-file=\(dir.path)/bus.conf", "--nofork", "--nopidfile"],
                               logURL: dir.appendingPathComponent("dbus.log"))
        guard poll(timeout: 10, { FileManager.default.fileExists(atPath: socket) }) else {
            bus.stop(); holder.stop()
            throw HarnessError("dbus-daemon did not start: \(bus.logTail())")
        }
        try """
            [server]
            use-ipv4=yes
            use-ipv6=no
            allow-interfaces=v0
            enable-dbus=yes
            ratelimit-interval-usec=0
            [wide-area]
            enable-wide-area=no
            [publish]
            publish-hinfo=no
            publish-workstation=no
            """.write(to: dir.appendingPathComponent("avahi-daemon.conf"), atomically: true, encoding: .utf8)
        do { try startDaemon() } catch { stop(); throw error }
    }

    /// Starts avahi-daemon (again, after `stopDaemon`) and waits until it serves.
    func startDaemon() throws {
        // avahi-daemon closes every descriptor it inherited, which Foundation's Process takes
        // for its exit (and then waits for it, blocking every other child's exit): a shell
        // stays in between, and passes SIGTERM on
        let avahi = try InteropTools.need("avahi-daemon")
        let script = "trap 'kill $pid; wait $pid' TERM; \(avahi) -f \(dir.path)/avahi-daemon.conf --no-drop-root --no-chroot --no-rlimits --no-proc-title & pid=$!; wait $pid"
        let daemon = try ChildProcess(name: "avahi-daemon", executable: InteropTools.need("nsenter"),
                                  arguments: ["--net=/proc/\(holder.pid)/ns/net", "--mount=/proc/\(holder.pid)/ns/mnt", "/bin/sh", "-c", script],
                                  logURL: dir.appendingPathComponent("avahi-daemon-\(UUID().uuidString.prefix(4)).log"),
                                  environment: ["DBUS_SYSTEM_BUS_ADDRESS": busAddress])
        self.daemon = daemon
        guard poll(timeout: 15, { daemon.log.contains("Server startup complete") }) else {
            throw HarnessError("avahi-daemon did not start: \(daemon.logTail())")
        }
    }

    func stopDaemon() { daemon?.stop(); daemon = nil }

    /// `nsenter` arguments that run a program inside the namespace's network.
    var inNamespace: [String] { ["--net=/proc/\(holder.pid)/ns/net"] }

    func stop() {
        daemon?.stop()
        bus.stop()
        holder.stop()
    }
}
