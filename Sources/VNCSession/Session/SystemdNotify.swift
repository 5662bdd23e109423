import Foundation

/// systemd's notify protocol (sd_notify without libsystemd): datagrams to `$NOTIFY_SOCKET`.
/// `READY=1` once the window is up, `WATCHDOG=1` from the event loop at half the interval the
/// unit's WatchdogSec gives (`$WATCHDOG_USEC`), so a frozen loop gets the viewer restarted.
public final class SystemdNotifier: @unchecked Sendable {
    private let path: String
    /// Seconds between pings (half of WatchdogSec); nil without a watchdog.
    public let pingInterval: Double?
    private var lastPing = 0.0
    private let fd: Int32

    /// nil when not started by systemd with Type=notify (`env`: the command line's environment).
    public init?(environment env: [String: String]) {
        guard let p = env["NOTIFY_SOCKET"], !p.isEmpty, p.utf8.count < 108 else { return nil }
        // WATCHDOG_PID, when set, names the process the watchdog is for
        if let pid = env["WATCHDOG_PID"].flatMap(Int32.init), pid != getpid() {
            pingInterval = nil
        } else if let usec = env["WATCHDOG_USEC"].flatMap(Double.init), usec > 0 {
            pingInterval = usec / 2e6
        } else {
            pingInterval = nil
        }
        path = p
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
    }
    deinit { close(fd) }

    /// Never blocks: a full queue on the other end (a reader that stopped) must not stall the
    /// event loop that sends the pings.
    @discardableResult
    public func send(_ state: String) -> Bool {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }   // an abstract socket
        withUnsafeMutableBytes(of: &addr.sun_path) { dst in
            for (i, b) in bytes.enumerated() where i < dst.count { dst[i] = b }
        }
        let len = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let msg = Array(state.utf8)
        let n = withUnsafePointer(to: &addr) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, msg, msg.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), $0, len) }
        }
        return n == msg.count
    }

    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func status(_ s: String) { send("STATUS=\(s)") }

    /// From the event loop: a ping when half the watchdog interval has passed.
    public func pingIfDue(now: Double = monotonicSeconds()) {
        guard let i = pingInterval, now - lastPing >= i * 0.9 else { return }
        lastPing = now
        send("WATCHDOG=1")
    }
}
