import Foundation
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

        // the discovery in this process, on the test's bus
        let oldBus = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"]
        setenv("DBUS_SYSTEM_BUS_ADDRESS", net.busAddress, 1)
        defer { if let oldBus { setenv("DBUS_SYSTEM_BUS_ADDRESS", oldBus, 1) } else { unsetenv("DBUS_SYSTEM_BUS_ADDRESS") } }
        let changes = DiscoveryCounter()
        let d = ServiceDiscovery { changes.add() }
        try d.start()
        defer { d.stop() }

        let name = "Farcast test desk"
        let published = Date()
        let publisher = try ChildProcess(name: "avahi-publish", executable: InteropTools.need("avahi-publish"),
                                         arguments: ["-s", name, "_rfb._tcp", "\(port)"],
                                         logURL: dir.appendingPathComponent("publish.log"),
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": net.busAddress])
        addTeardownBlock { publisher.stop() }
        var found: DiscoveredService?
        XCTAssertTrue(poll(timeout: 15) { found = d.services.first { $0.name == name }; return found != nil },
                      "published service found: \(publisher.logTail()) \(net.daemon?.logTail() ?? "")")
        let seconds = Date().timeIntervalSince(published)
        // measured, not asserted (timing is never pass/fail here): the issue asks for 3 s
        print("discovery: '\(name)' appeared \(String(format: "%.2f", seconds)) s after avahi-publish started")
        guard let s = found else { return }
        XCTAssertEqual(s.type, "_rfb._tcp")
        XCTAssertEqual(s.address, AvahiNetwork.address)
        XCTAssertEqual(s.port, port)
        XCTAssertEqual(s.connectAddress, "\(AvahiNetwork.address)::\(port)")
        XCTAssertGreaterThan(changes.value, 0, "the launcher is woken")

        // the address it resolved to reaches the Xvnc (a snapshot from inside the namespace)
        let out = dir.appendingPathComponent("discovered.png").path
        let snap = try runTool("nsenter", net.inNamespace + [viewerPath, "snapshot", s.connectAddress, "-o", out, "--timeout", "20"],
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
        XCTAssertTrue(poll(timeout: 15) { !d.services.contains { $0.name == name } }, "withdrawn service gone")

        // the daemon restarts: the discovery finds it again (a new client) and what it announces
        net.stopDaemon()
        XCTAssertTrue(poll(timeout: 10) { d.problem != nil }, "the daemon's absence is known")
        try net.startDaemon()
        let again = try ChildProcess(name: "avahi-publish-2", executable: InteropTools.need("avahi-publish"),
                                     arguments: ["-s", "After restart", "_rfb._tcp", "\(port)"],
                                     logURL: dir.appendingPathComponent("publish2.log"),
                                     environment: ["DBUS_SYSTEM_BUS_ADDRESS": net.busAddress])
        addTeardownBlock { again.stop() }
        XCTAssertTrue(poll(timeout: 20) { d.services.contains { $0.name == "After restart" } }, "found after the daemon came back")
        XCTAssertNil(d.problem)
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

private final class DiscoveryCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.withLock { n += 1 } }
    var value: Int { lock.withLock { n } }
}
