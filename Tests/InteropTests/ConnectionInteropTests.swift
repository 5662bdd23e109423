import Foundation
import XCTest
import RFB
@testable import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// Ways in (unix socket, reverse connection, SSH gateway) and faults (server killed and
/// restarted, stopped with SIGSTOP, never answering), against real servers on loopback.
final class ConnectionInteropTests: XCTestCase {
    func workDir() -> URL {
        let d = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-conn-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: d) }
        return d
    }

    func snapshotOptions() -> SnapshotOptions {
        var o = SnapshotOptions()
        o.settings.encodings = [Encoding.zrle, Encoding.copyRect]
        o.quietSeconds = 1.0
        return o
    }

    // MARK: ways in

    func testUnixSocket() throws {
        let path = workDir().appendingPathComponent("vnc.sock").path
        var o = VNCServer.Options()
        o.extraArguments = ["-rfbunixpath", path]
        let server = try startServer(.xvnc, o)
        let screen = try server.captureStableScreen()
        let r = try Snapshot.capture(ConnectionPlan(target: try ConnectionTarget.parse("unix:\(path)").target), options: snapshotOptions())
        assertImagesEqual(RGBImage(r.framebuffer), screen, "unix-socket")
    }

    /// x11vnc -connect dials our listener (vncviewer -listen).
    func testListenForReverseConnection() throws {
        let port = try Loopback.freePort()
        let listener = try Listener(port: port, loopbackOnly: true)
        var o = VNCServer.Options()
        o.extraArguments = ["-connect", "127.0.0.1:\(port)"]
        let server = try startServer(.x11vnc, o)
        let screen = try server.captureStableScreen()
        let t = try listener.accept(timeout: 30)
        defer { t.close() }
        var so = snapshotOptions()
        so.quietSeconds = 1.5
        let r = try Snapshot.run(transport: t, options: so, log: { _ in })
        assertImagesEqual(RGBImage(r.framebuffer), screen, "listen")
    }

    /// A real sshd of the test's own on loopback (key login), reached with the system ssh client.
    func testViaSSHGateway() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd") else {
            throw XCTSkip("sshd missing: run scripts/install-deps.sh")
        }
        // the VNC server first: the harness waits on its own children, sshd is started after
        let server = try startServer(.xvnc)
        let screen = try server.captureStableScreen()
        let dir = workDir()
        let hostKey = dir.appendingPathComponent("host_ed25519").path
        let userKey = dir.appendingPathComponent("user_ed25519").path
        _ = try runTool("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey], in: dir)
        _ = try runTool("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", userKey], in: dir)
        let authorized = dir.appendingPathComponent("authorized_keys")
        try FileManager.default.copyItem(atPath: userKey + ".pub", toPath: authorized.path)
        let sshPort = try Loopback.freePort()
        let user = String(cString: getpwuid(getuid()).pointee.pw_name)
        let config = """
            Port \(sshPort)
            ListenAddress 127.0.0.1
            HostKey \(hostKey)
            PidFile \(dir.appendingPathComponent("sshd.pid").path)
            AuthorizedKeysFile \(authorized.path)
            StrictModes no
            UsePAM no
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin prohibit-password
            AllowTcpForwarding yes
            AllowUsers \(user)
            """
        let cfg = dir.appendingPathComponent("sshd_config")
        try config.write(to: cfg, atomically: true, encoding: .utf8)
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)  // privilege separation dir
        let sshd = try ChildProcess(name: "sshd", executable: "/usr/sbin/sshd", arguments: ["-D", "-e", "-f", cfg.path],
                                    logURL: dir.appendingPathComponent("sshd.log"))
        addTeardownBlock { sshd.stop() }
        XCTAssertTrue(poll(timeout: 15) { Loopback.isListening(port: sshPort) }, "sshd did not start: \(sshd.logTail())")
        // the target host is as the gateway sees it: localhost
        var plan = ConnectionPlan(target: .tcp(HostSpec(host: "localhost", port: server.port)), via: "\(user)@127.0.0.1:\(sshPort)")
        plan.sshCommand = ["ssh", "-F", "/dev/null", "-i", userKey, "-o", "BatchMode=yes",
                           "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"]
        let r = try Snapshot.capture(plan, options: snapshotOptions())
        assertImagesEqual(RGBImage(r.framebuffer), screen, "via-ssh")
    }

    // MARK: faults

    /// An Xvnc we start ourselves, so it can be restarted on the same port.
    final class OwnXvnc {
        let display: Int, port: Int, dir: URL
        var proc: ChildProcess?
        init(dir: URL) throws {
            display = try XDisplays.freeDisplay()
            port = try Loopback.freePort()
            self.dir = dir
        }
        func start() throws {
            let p = try ChildProcess(name: "Xvnc", executable: InteropTools.need("Xvnc"),
                                     arguments: [":\(display)", "-rfbport", "\(port)", "-interface", "127.0.0.1", "-SecurityTypes", "None",
                                                 "-geometry", "320x200", "-depth", "24", "-nolisten", "tcp", "-AlwaysShared"],
                                     logURL: dir.appendingPathComponent("xvnc-\(UUID().uuidString.prefix(4)).log"))
            proc = p
            guard poll(timeout: 20, { Loopback.rfbBanner(port: self.port) != nil }) else {
                throw HarnessError("Xvnc :\(display) did not start: \(p.logTail())")
            }
        }
        func stop() {
            proc?.stop()
            if let p = proc { XDisplays.removeLeftovers(display: display, pid: p.pid) }
            proc = nil
        }
        var pid: Int32 { proc?.pid ?? 0 }
    }

    func waitState(_ s: Session, timeout: Double, _ what: String, _ match: (Session.State) -> Bool) {
        let ok = poll(timeout: timeout, interval: 0.05) { match(s.state) }
        XCTAssertTrue(ok, "\(what): state is \(s.state)")
    }

    func isWaiting(_ st: Session.State) -> Bool { if case .waiting = st { return true }; return false }

    func testServerKilledAndRestartedIsReconnected() throws {
        let x = try OwnXvnc(dir: workDir())
        addTeardownBlock { x.stop() }
        try x.start()
        var policy = ReconnectPolicy(mode: .always)
        policy.initialDelay = 0.3; policy.maxDelay = 1
        let s = Session(plan: ConnectionPlan(target: .tcp(HostSpec(host: "127.0.0.1", port: x.port))),
                        settings: ClientSettings(), reconnect: policy)
        s.start()
        addTeardownBlock { s.stop() }
        waitState(s, timeout: 15, "first connection") { $0 == .ready }
        x.stop()
        waitState(s, timeout: 10, "drop noticed", isWaiting)
        // input while disconnected is dropped, not queued
        s.sendKey(0x61, down: true)
        try x.start()
        // backoff capped at 1 s ± 20 %: back well within 10 s
        waitState(s, timeout: 10, "reconnected") { $0 == .ready }
        XCTAssertEqual(s.withFramebuffer { $0?.width }, 320)
    }

    func testStoppedServerIsDetectedAsDeadAndKeysAreReleased() throws {
        let x = try OwnXvnc(dir: workDir())
        addTeardownBlock { x.stop() }
        try x.start()
        var policy = ReconnectPolicy(mode: .always)
        policy.initialDelay = 0.3; policy.maxDelay = 1
        var live = LivenessPolicy()
        live.probeAfter = 1; live.deadAfter = 2; live.handshakeTimeout = 5
        let s = Session(plan: ConnectionPlan(target: .tcp(HostSpec(host: "127.0.0.1", port: x.port))),
                        settings: ClientSettings(), reconnect: policy, liveness: live)
        s.start()
        addTeardownBlock { s.stop() }
        waitState(s, timeout: 15, "connected") { $0 == .ready }
        s.sendKey(0xffe1, down: true)   // Shift_L held when the link dies
        XCTAssertTrue(poll(timeout: 5) { self.shiftDown(display: x.display) }, "Shift reached the server")
        kill(x.pid, SIGSTOP)
        let t0 = Date()
        waitState(s, timeout: 8, "dead link noticed", isWaiting)
        let noticed = Date().timeIntervalSince(t0)
        XCTAssertLessThan(noticed, 1 + 2 + 1.5, "detected within probeAfter + deadAfter (+ slack)")
        if case .waiting(let why, _, _) = s.state { XCTAssertTrue(why.contains("no answer"), why) }
        kill(x.pid, SIGCONT)
        waitState(s, timeout: 15, "back after SIGCONT") { $0 == .ready }
        XCTAssertTrue(poll(timeout: 5) { !self.shiftDown(display: x.display) }, "Shift is not left stuck on the server")
    }

    func testServerThatNeverAnswers() throws {
        // accepts the TCP connection, never says a word
        let port = try Loopback.freePort()
        let l = try Listener(port: port, loopbackOnly: true)
        var live = LivenessPolicy()
        live.handshakeTimeout = 1.5
        let s = Session(plan: ConnectionPlan(target: .tcp(HostSpec(host: "127.0.0.1", port: port))),
                        settings: ClientSettings(), reconnect: ReconnectPolicy(mode: .never), liveness: live)
        s.start()
        addTeardownBlock { s.stop() }
        let peer = try l.accept(timeout: 10)
        defer { peer.close() }
        waitState(s, timeout: 8, "gave up") { if case .failed = $0 { return true }; return false }
        if case .failed(let why) = s.state { XCTAssertTrue(why.contains("did not complete the handshake"), why) }
    }

    func testRefusedConnectionWithoutReconnectFailsClearly() throws {
        let port = try Loopback.freePort()
        let s = Session(plan: ConnectionPlan(target: .tcp(HostSpec(host: "127.0.0.1", port: port))),
                        settings: ClientSettings(), reconnect: ReconnectPolicy(mode: .never))
        s.start()
        addTeardownBlock { s.stop() }
        waitState(s, timeout: 8, "failed") { if case .failed = $0 { return true }; return false }
        if case .failed(let why) = s.state { XCTAssertTrue(why.contains("refused"), why) }
    }

    func testAuthenticationFailureIsNotRetried() throws {
        var o = VNCServer.Options()
        o.security = .vncAuth(password: "farcast1")
        o.content = .blank
        let server = try startServer(.xvnc, o)
        var settings = ClientSettings()
        settings.password = Array("wrong".utf8)
        let s = Session(plan: ConnectionPlan(target: .tcp(HostSpec(host: "127.0.0.1", port: server.port))),
                        settings: settings, reconnect: ReconnectPolicy(mode: .always))
        s.start()
        addTeardownBlock { s.stop() }
        waitState(s, timeout: 10, "failed without retrying") { if case .failed = $0 { return true }; return false }
    }

    /// The network path cut and restored: Xvnc runs in a network namespace of the test's own,
    /// reached over a veth pair; taking the host end down makes the link silently drop packets.
    func testNetworkPathCutAndRestored() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") else {
            throw XCTSkip("needs root and iproute2 for a network namespace")
        }
        let tag = String(UUID().uuidString.prefix(6)).lowercased()
        let ns = "fc-\(tag)", hostIf = "fch\(tag)", nsIf = "fcn\(tag)"
        let dir = workDir()
        func ip(_ args: [String]) throws { _ = try runTool("ip", args, in: dir) }
        // link-local addresses on the test's own link: nothing outside this machine is involved
        try ip(["netns", "add", ns])
        addTeardownBlock { _ = try? runTool("ip", ["netns", "del", ns], in: dir, allowFailure: true)
                           _ = try? runTool("ip", ["link", "del", hostIf], in: dir, allowFailure: true) }
        try ip(["link", "add", hostIf, "type", "veth", "peer", "name", nsIf])
        try ip(["link", "set", nsIf, "netns", ns])
        try ip(["addr", "add", "169.254.213.1/30", "dev", hostIf])
        try ip(["link", "set", hostIf, "up"])
        try ip(["netns", "exec", ns, "ip", "addr", "add", "169.254.213.2/30", "dev", nsIf])
        try ip(["netns", "exec", ns, "ip", "link", "set", nsIf, "up"])
        try ip(["netns", "exec", ns, "ip", "link", "set", "lo", "up"])

        let display = try XDisplays.freeDisplay()
        let port = try Loopback.freePort()
        let xvnc = try ChildProcess(name: "Xvnc", executable: "/usr/sbin/ip",
                                    arguments: ["netns", "exec", ns, InteropTools.need("Xvnc"), ":\(display)", "-rfbport", "\(port)",
                                                "-interface", "169.254.213.2", "-SecurityTypes", "None", "-geometry", "320x200",
                                                "-depth", "24", "-nolisten", "tcp"],
                                    logURL: dir.appendingPathComponent("xvnc.log"))
        addTeardownBlock { xvnc.stop(); XDisplays.removeLeftovers(display: display, pid: xvnc.pid) }

        var policy = ReconnectPolicy(mode: .always)
        policy.initialDelay = 0.3; policy.maxDelay = 1
        var live = LivenessPolicy()
        live.probeAfter = 1; live.deadAfter = 2; live.handshakeTimeout = 3
        var plan = ConnectionPlan(target: .tcp(HostSpec(host: "169.254.213.2", port: port)))
        plan.connectTimeout = 1.5
        let s = Session(plan: plan, settings: ClientSettings(), reconnect: policy, liveness: live)
        s.start()
        addTeardownBlock { s.stop() }
        waitState(s, timeout: 20, "connected across the namespace") { $0 == .ready }

        try ip(["link", "set", hostIf, "down"])
        let t0 = Date()
        waitState(s, timeout: 10, "cut noticed", isWaiting)
        XCTAssertLessThan(Date().timeIntervalSince(t0), 1 + 2 + 1.5, "dead link detected within the liveness bound")
        try ip(["link", "set", hostIf, "up"])
        // retries every ≤ 1.2 s, each connect bounded at 1.5 s: back within a few seconds
        waitState(s, timeout: 15, "back after the link returned") { $0 == .ready }
    }

    /// Whether Shift_L is down on the X server, as the device VNC input arrives on (TigerVNC keyboard) reports it.
    func shiftDown(display: Int) -> Bool {
        guard let r = try? runTool("xinput", ["--query-state", "TigerVNC keyboard"], in: URL(fileURLWithPath: "/tmp"),
                                   environment: ["DISPLAY": ":\(display)"], allowFailure: true) else { return false }
        // Shift_L is X keycode 50 in Xvnc's default map
        return String(decoding: r.stdout, as: UTF8.self).contains("key[50]=down")
    }
}
