import Foundation
import RFB
import VNCSession
import XCTest

/// QEMU's VNC server (no guest; paused): its pointer mode (relative with the PS/2 mouse) and
/// xvp power control, a reset seen as QMP's RESET event.
final class QEMUInputInteropTests: XCTestCase {
    typealias Machine = QEMUMachine

    /// Connects and collects events until `until` holds (or 10 s).
    func session(_ m: Machine) -> Session {
        var s = ClientSettings()
        s.securityMethods = [.type(SecurityType.none)]
        return Session(spec: "qemu", settings: s) { _ in
            try ConnectionPlan(target: .tcp(HostSpec(host: "127.0.0.1", port: m.port))).open(log: { _ in })
        }
    }

    func collect(_ s: Session, until: ([EngineEvent]) -> Bool) -> [EngineEvent] {
        var all: [EngineEvent] = []
        _ = poll(timeout: 10) { all += s.takeEvents(); return until(all) }
        return all
    }

    func testPointerModeIsRelativeWithThePS2Mouse() throws {
        let ps2 = try startQEMU([])
        let s = session(ps2)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        let ev = collect(s) { $0.contains(.pointerMode(relative: true)) }
        XCTAssertTrue(ev.contains(.pointerMode(relative: true)), "PS/2 mouse: relative, got \(ev)")

        // (a USB tablet makes QEMU's pointer absolute only once a guest drives it: no guest here)
    }

    /// xvp: QEMU with power-control=on announces it; a reset asked through the viewer reaches
    /// the machine (QMP reports RESET).
    func testPowerControlResetsTheMachine() throws {
        let m = try startQEMU([])
        // a QMP listener that prints the events it sees
        let listener = m.dir.appendingPathComponent("qmp.py")
        try """
            import json, socket, sys, time
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
            f.readline(); f.write(json.dumps({"execute": "qmp_capabilities"}) + "\\n"); f.flush(); f.readline()
            print("READY", flush=True)
            end = time.time() + 20
            while time.time() < end:
                line = f.readline()
                if not line: break
                ev = json.loads(line).get("event")
                if ev: print(ev, flush=True)
            """.write(to: listener, atomically: true, encoding: .utf8)
        let qmp = try ChildProcess(name: "qmp", executable: InteropTools.need("python3"), arguments: [listener.path, m.qmp],
                                   logURL: m.dir.appendingPathComponent("qmp.log"))
        addTeardownBlock { qmp.stop() }
        XCTAssertTrue(poll(timeout: 10) { qmp.logTail().contains("READY") }, qmp.logTail())
        let s = session(m)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        let ev = collect(s) { $0.contains(.powerControl(available: true)) }
        XCTAssertTrue(ev.contains(.powerControl(available: true)), "xvp announced: \(ev)")
        s.sendPowerAction(.reset)
        XCTAssertTrue(poll(timeout: 10) { qmp.logTail().contains("RESET") }, "QMP events: \(qmp.logTail())")
    }

    /// TightPNG as QEMU sends it: the snapshot equals QEMU's own screendump, pixel for pixel.
    func testTightPNGSnapshotEqualsTheScreendump() throws {
        let m = try startQEMU([])
        var o = SnapshotOptions()
        o.settings.securityMethods = [.type(SecurityType.none)]
        o.settings.encodings = [Encoding.tightPNG]
        o.quietSeconds = 0.7
        let r = try Snapshot.capture(HostSpec(host: "127.0.0.1", port: m.port), options: o)
        let screen = try m.screendump()
        assertImagesEqual(RGBImage(r.framebuffer), screen, "TightPNG snapshot vs QEMU screendump")
    }
}
