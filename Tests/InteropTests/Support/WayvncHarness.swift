import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// wayvnc (Debian 12: 0.5 on neatvnc 0.5.4) on a headless sway, on 127.0.0.1, with a user name,
/// a password and a self-signed certificate: it then offers VeNCrypt X509Plain only. sway shows
/// the interop scene as its background (swaybg, centred, unscaled), so grim's screenshot is the
/// scene pixel for pixel and the viewer's picture can be checked against the server's screen.
final class WayvncServer: @unchecked Sendable {
    static let tools = ["sway", "swaybg", "wayvnc", "grim", "openssl", "setpriv"]
    static let username = "farcast"
    static let password = "wayvnc-pw-1"
    /// sway refuses to start as root (it checks that root cannot be regained after dropping
    /// it), so when the tests run as root it runs as nobody, with its runtime directory.
    static let swayUser: uid_t = 65534

    let width = 1024, height = 768
    let port: Int
    let dir: URL
    /// The server's certificate (PEM); self-signed for localhost and 127.0.0.1, so it serves
    /// as its own CA for --x509-ca.
    let certificate: String
    let scene: RGBImage
    private let sway: ChildProcess
    private let wayvnc: ChildProcess
    private let lock = NSLock()
    private var stopped = false

    private init(port: Int, dir: URL, certificate: String, scene: RGBImage, sway: ChildProcess, wayvnc: ChildProcess) {
        self.port = port; self.dir = dir; self.certificate = certificate; self.scene = scene
        self.sway = sway; self.wayvnc = wayvnc
    }

    deinit { stop() }

    /// Skips (or fails with FARCAST_INTEROP_REQUIRED=1) when sway, wayvnc or grim are missing.
    static func skipUnlessAvailable() throws {
        try InteropTools.skipUnlessAvailable()   // the scene is rendered with ImageMagick
        let missing = tools.filter { InteropTools.path($0) == nil }
        guard !missing.isEmpty else { return }
        let msg = "wayvnc tests need \(missing.joined(separator: ", ")): run scripts/install-deps.sh"
        if ProcessInfo.processInfo.environment["FARCAST_INTEROP_REQUIRED"] == "1" { throw HarnessError(msg) }
        throw XCTSkip(msg)
    }

    /// Starts sway, waits until its screen shows the scene, then starts wayvnc on a free port
    /// (another one if a parallel run took it) and waits for its RFB banner.
    static func start(timeout: TimeInterval = 30) throws -> WayvncServer {
        try skipUnlessAvailable()
        let dir = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("farcast-interop-wayvnc-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        _ = chmod(dir.path, 0o755)   // sway (as nobody) reads its config and the scene here
        var sway: ChildProcess?
        do {
            let cert = try makeCertificate(in: dir)
            let sceneURL = dir.appendingPathComponent("scene.png")
            try FileManager.default.copyItem(at: try Scene.imageURL(width: 1024, height: 768), to: sceneURL)
            _ = chmod(sceneURL.path, 0o644)
            let scene = try PNG.read(path: sceneURL.path)
            let s = try startSway(dir: dir, scene: sceneURL)
            sway = s
            let display = try waitForWayland(s, dir: dir, timeout: timeout)
            try waitForScreen(scene, display: display, dir: dir, sway: s, timeout: timeout)
            var lastError: Error = HarnessError("wayvnc not started")
            for attempt in 0..<4 {
                let port = try Loopback.freePort()
                let v = try startWayvnc(port: port, cert: cert, display: display, dir: dir, attempt: attempt)
                let up = poll(timeout: timeout, interval: 0.05) {
                    !v.isRunning || Loopback.rfbBanner(port: port)?.hasPrefix("RFB ") == true
                }
                if up && v.isRunning {
                    return WayvncServer(port: port, dir: dir, certificate: cert.cert, scene: scene, sway: s, wayvnc: v)
                }
                lastError = HarnessError("wayvnc on port \(port) did not answer (log \(v.logURL.path)):\n\(v.logTail())")
                v.stop()
            }
            throw lastError
        } catch {
            sway?.stop()
            removeDir(dir)
            throw error
        }
    }

    // MARK: start steps

    private static func makeCertificate(in dir: URL) throws -> (cert: String, key: String) {
        let cert = dir.appendingPathComponent("cert.pem").path, key = dir.appendingPathComponent("key.pem").path
        try runTool("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                                "-days", "2", "-subj", "/CN=localhost",
                                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], in: dir)
        return (cert, key)
    }

    private static func startSway(dir: URL, scene: URL) throws -> ChildProcess {
        let run = dir.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        _ = chmod(run.path, 0o700)
        // No X server, no input devices; the cursor hides at once, so the screen is the scene.
        let config = dir.appendingPathComponent("sway.config")
        try """
            xwayland disable
            output * resolution 1024x768 bg "\(scene.path)" center #000000
            seat * hide_cursor 100

            """.write(to: config, atomically: true, encoding: .utf8)
        _ = chmod(config.path, 0o644)
        // One setpriv changes the user and then sets the parent-death signal: a change of user
        // would clear a signal set before it.
        var args = ["--pdeathsig", "TERM", "--", try InteropTools.need("sway"), "-c", config.path]
        if getuid() == 0 {
            guard chown(run.path, swayUser, gid_t(swayUser)) == 0 else { throw HarnessError("chown \(run.path): errno \(errno)") }
            args = ["--reuid", "\(swayUser)", "--regid", "\(swayUser)", "--clear-groups"] + args
        }
        // headless backend and the pixman renderer: no GPU, no seat, no DRM device needed
        return try ChildProcess(name: "sway", executable: InteropTools.need("setpriv"), arguments: args,
                                logURL: dir.appendingPathComponent("sway.log"),
                                environment: ["XDG_RUNTIME_DIR": run.path, "WLR_BACKENDS": "headless",
                                              "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman",
                                              "WAYLAND_DISPLAY": "", "SWAYSOCK": ""],
                                dieWithParent: false)
    }

    /// The Wayland display sway made in its runtime directory ("wayland-1" or so).
    private static func waitForWayland(_ sway: ChildProcess, dir: URL, timeout: TimeInterval) throws -> String {
        let run = dir.appendingPathComponent("run").path
        var name: String?
        let ok = poll(timeout: timeout, interval: 0.05) {
            name = (try? FileManager.default.contentsOfDirectory(atPath: run))?
                .first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
            return name != nil || !sway.isRunning
        }
        guard ok, sway.isRunning, let name else {
            throw HarnessError("sway did not come up (log \(sway.logURL.path)):\n\(sway.logTail())")
        }
        return name
    }

    /// Waits until grim's screenshot is the scene (swaybg draws it a moment after sway starts).
    private static func waitForScreen(_ scene: RGBImage, display: String, dir: URL, sway: ChildProcess,
                                      timeout: TimeInterval) throws {
        var why = "no screenshot"
        let ok = poll(timeout: timeout, interval: 0.1) {
            guard sway.isRunning else { why = "sway exited"; return true }
            guard let img = try? screenshot(display: display, dir: dir) else { why = "grim failed"; return false }
            let d = compareImages(img, scene)
            why = "screen differs from the scene: \(d)"
            return d.isEqual
        }
        guard ok, sway.isRunning else {
            throw HarnessError("sway's screen did not show the scene within \(timeout)s: \(why); log:\n\(sway.logTail())")
        }
    }

    private static func startWayvnc(port: Int, cert: (cert: String, key: String), display: String, dir: URL,
                                    attempt: Int) throws -> ChildProcess {
        let config = dir.appendingPathComponent("wayvnc-\(attempt).config")
        try """
            address=\(Loopback.host)
            port=\(port)
            enable_auth=true
            username=\(username)
            password=\(password)
            certificate_file=\(cert.cert)
            private_key_file=\(cert.key)

            """.write(to: config, atomically: true, encoding: .utf8)
        _ = chmod(config.path, 0o600)
        // -L info: client connections, logins and connection errors go to the log
        return try ChildProcess(name: "wayvnc", executable: InteropTools.need("wayvnc"),
                                arguments: ["-C", config.path, "-L", "info"],
                                logURL: dir.appendingPathComponent("wayvnc-\(port).log"),
                                environment: ["XDG_RUNTIME_DIR": dir.appendingPathComponent("run").path,
                                              "WAYLAND_DISPLAY": display])
    }

    // MARK: use

    private static func screenshot(display: String, dir: URL) throws -> RGBImage {
        let url = dir.appendingPathComponent("grim-\(UUID().uuidString.prefix(8)).png")
        defer { try? FileManager.default.removeItem(at: url) }
        try runTool("grim", ["-t", "png", url.path], in: dir,
                    environment: ["XDG_RUNTIME_DIR": dir.appendingPathComponent("run").path, "WAYLAND_DISPLAY": display],
                    timeout: 20)
        return try PNG.read(path: url.path)
    }

    /// sway's screen as grim takes it.
    func captureScreen() throws -> RGBImage {
        guard let display = (try? FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("run").path))?
            .first(where: { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }) else {
            throw HarnessError("sway's Wayland socket is gone")
        }
        return try Self.screenshot(display: display, dir: dir)
    }

    /// wayvnc's log so far (stdout and stderr).
    var log: String { wayvnc.log }
    var logURL: URL { wayvnc.logURL }
    var isRunning: Bool { wayvnc.isRunning && sway.isRunning }

    /// CPU seconds wayvnc has used so far (user + system, from /proc).
    var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(wayvnc.pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // fields after "(comm)": state is field 3, utime 14 and stime 15
        let f = stat[stat.index(after: close)...].split(separator: " ")
        guard f.count > 13, let u = Double(f[11]), let s = Double(f[12]) else { return nil }
        return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Stops wayvnc, then sway (swaybg leaves with it), and removes the work directory unless
    /// FARCAST_INTEROP_KEEP is set. Safe to call more than once.
    func stop() {
        lock.lock()
        if stopped { lock.unlock(); return }
        stopped = true
        lock.unlock()
        wayvnc.stop()
        sway.stop()
        Self.removeDir(dir)
    }

    private static func removeDir(_ dir: URL) {
        if ProcessInfo.processInfo.environment["FARCAST_INTEROP_KEEP"] == nil {
            try? FileManager.default.removeItem(at: dir)
        }
    }
}

extension XCTestCase {
    /// wayvnc on a headless sway for this test, stopped in teardown whatever the outcome.
    func startWayvnc() throws -> WayvncServer {
        let server = try WayvncServer.start()
        addTeardownBlock { server.stop() }
        return server
    }
}
