import Foundation
import RFB
@testable import VNCSession
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The launcher's discovery against a real avahi-daemon in a network namespace of its own:
/// a service published with avahi-publish appears, goes when the publisher stops, and the
/// address it resolves to reaches a real Xvnc in that namespace.
final class DiscoveryInteropTests: XCTestCase {
    func testPublishedServiceAppearsGoesAndConnects() throws {
        try InteropTools.skipUnlessAvailable()
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-avahi-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let net = try AvahiNetwork(dir: dir)
        addTeardownBlock { net.stop() }

        // a real Xvnc on the namespace's own address, its root a known colour
        let display = try XDisplays.freeDisplay()
        let port = 5901
        let xvnc = try ChildProcess(name: "Xvnc", executable: InteropTools.need("nsenter"),
                                    arguments: net.inNamespace + [try InteropTools.need("Xvnc"), ":\(display)", "-rfbport", "\(port)",
                                                                  "-interface", AvahiNetwork.address, "-geometry", "320x200", "-depth", "24",
                                                                  "-SecurityTypes", "None", "-nolisten", "tcp", "-noreset",
                                                                  "-desktop", "farcast-avahi"],
                                    logURL: dir.appendingPathComponent("xvnc.log"))
        addTeardownBlock { xvnc.stop(); XDisplays.removeLeftovers(display: display, pid: xvnc.pid) }
        XCTAssertTrue(poll(timeout: 15) { FileManager.default.fileExists(atPath: XDisplays.socketPath(display)) }, "Xvnc up: \(xvnc.logTail())")
        _ = try runTool("xsetroot", ["-solid", "#3366cc"], in: dir, environment: ["DISPLAY": ":\(display)"])

        // the discovery in a process of its own: libdbus reads DBUS_SYSTEM_BUS_ADDRESS once per
        // process, and SDL (in other tests of this process) may have opened the system bus first
        let browser = try ChildProcess(name: "discover", executable: viewerPath, arguments: ["discover", "--seconds", "120"],
                                       logURL: dir.appendingPathComponent("discover.log"),
                                       environment: ["DBUS_SYSTEM_BUS_ADDRESS": net.busAddress])
        addTeardownBlock { browser.stop() }
        let lines = { browser.logTail(500).split(separator: "\n").map(String.init) }

        let name = "Farcast test desk"
        let published = Date()
        let publisher = try ChildProcess(name: "avahi-publish", executable: InteropTools.need("avahi-publish"),
                                         arguments: ["-s", name, "_rfb._tcp", "\(port)"],
                                         logURL: dir.appendingPathComponent("publish.log"),
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": net.busAddress])
        addTeardownBlock { publisher.stop() }
        var found: [String]?
        XCTAssertTrue(poll(timeout: 15) { found = lines().first { $0.hasPrefix("+ \(name)\t") }?.components(separatedBy: "\t"); return found != nil },
                      "published service found: \(browser.logTail()) \(publisher.logTail()) \(net.daemon?.logTail() ?? "")")
        let seconds = Date().timeIntervalSince(published)
        // measured, not asserted (timing is never pass/fail here): the issue asks for 3 s
        print("discovery: '\(name)' appeared \(String(format: "%.2f", seconds)) s after avahi-publish started")
        guard let f = found, f.count == 3 else { return }
        XCTAssertEqual(f[1], "_rfb._tcp")
        XCTAssertEqual(f[2], "\(AvahiNetwork.address)::\(port)")

        // the address it resolved to reaches the Xvnc (a snapshot from inside the namespace)
        let out = dir.appendingPathComponent("discovered.png").path
        let snap = try runTool("nsenter", net.inNamespace + [viewerPath, "snapshot", f[2], "-o", out, "--timeout", "20"],
                               in: dir, timeout: 40, allowFailure: true)
        XCTAssertEqual(snap.status, 0, "snapshot of the discovered host: \(snap.stderr)")
        if let img = try? PNG.read(path: out) {
            XCTAssertEqual(img.width, 320)
            XCTAssertEqual(img.height, 200)
            XCTAssertEqual(img.pixels[100 * 320 + 160], 0x3366cc, "the server's desktop")
        } else {
            XCTFail("no snapshot written")
        }

        // the publisher stops: the entry goes
        publisher.stop()
        XCTAssertTrue(poll(timeout: 15) { lines().contains { $0.hasPrefix("- \(name)\t") } }, "withdrawn service gone: \(browser.logTail())")

        // the daemon restarts: the discovery finds it again (a new client) and what it announces
        net.stopDaemon()
        XCTAssertTrue(poll(timeout: 10) { lines().contains { $0.hasPrefix("! ") } }, "the daemon's absence is known: \(browser.logTail())")
        try net.startDaemon()
        let again = try ChildProcess(name: "avahi-publish-2", executable: InteropTools.need("avahi-publish"),
                                     arguments: ["-s", "After restart", "_rfb._tcp", "\(port)"],
                                     logURL: dir.appendingPathComponent("publish2.log"),
                                     environment: ["DBUS_SYSTEM_BUS_ADDRESS": net.busAddress])
        addTeardownBlock { again.stop() }
        XCTAssertTrue(poll(timeout: 20) { lines().contains { $0.hasPrefix("+ After restart\t") } }, "found after the daemon came back: \(browser.logTail())")
        XCTAssertTrue(lines().contains("ok"), "the problem cleared: \(browser.logTail())")
    }

    /// A name with control characters (anyone on the LAN may announce one) is shown cleaned and
    /// goes when withdrawn: entries are removed under the name they were stored under. Before,
    /// such an entry stayed for ever, so a host announcing and withdrawing names filled every
    /// slot (`maxServices`) and real hosts were no longer shown.
    func testNameWithControlCharactersGoesWhenWithdrawn() throws {
        try InteropTools.skipUnlessAvailable()
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-avahi-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let net = try AvahiNetwork(dir: dir)
        addTeardownBlock { net.stop() }
        let browser = try ChildProcess(name: "discover", executable: viewerPath, arguments: ["discover", "--seconds", "60"],
                                       logURL: dir.appendingPathComponent("discover.log"),
                                       environment: ["DBUS_SYSTEM_BUS_ADDRESS": net.busAddress])
        addTeardownBlock { browser.stop() }
        let lines = { browser.logTail(500).split(separator: "\n").map(String.init) }
        for (i, raw) in ["Bad\u{01}name\u{1b}[2J", "Line\u{2028}break\u{200f}"].enumerated() {
            let shown = ServerText.printable(raw)
            let publisher = try ChildProcess(name: "avahi-publish-\(i)", executable: InteropTools.need("avahi-publish"),
                                             arguments: ["-s", raw, "_rfb._tcp", "\(5901 + i)"],
                                             logURL: dir.appendingPathComponent("publish\(i).log"),
                                             environment: ["DBUS_SYSTEM_BUS_ADDRESS": net.busAddress])
            addTeardownBlock { publisher.stop() }
            XCTAssertTrue(poll(timeout: 15) { lines().contains { $0.hasPrefix("+ \(shown)\t") } },
                          "'\(shown)' shown cleaned: \(browser.logTail()) \(publisher.logTail())")
            XCTAssertFalse(browser.logTail(500).unicodeScalars.contains { $0.value == 0x1b || $0.value == 0x01 || $0.value == 0x2028 })
            publisher.stop()
            XCTAssertTrue(poll(timeout: 15) { lines().contains { $0.hasPrefix("- \(shown)\t") } }, "'\(shown)' gone: \(browser.logTail())")
        }
    }

    func testWorkstationsAreListedWithTheVNCPortAndWithoutTheirMACAddress() {
        let w = DiscoveredService(name: "studio [00:11:22:33:44:55]", type: ServiceDiscovery.workstationType, domain: "local",
                                  hostName: "studio.local", address: "10.0.0.7", port: 9, isIPv6: false)
        XCTAssertEqual(w.displayName, "studio")
        XCTAssertEqual(w.connectAddress, "10.0.0.7::5900")
        let v6 = DiscoveredService(name: "pi", type: ServiceDiscovery.rfbType, domain: "local", hostName: "pi.local",
                                   address: "fe80::1", port: 5901, isIPv6: true)
        XCTAssertEqual(v6.connectAddress, "pi.local::5901", "a link-local address needs its interface: the name instead")
    }
}
