import Foundation
import RFB
import VNCSession
import XCTest

/// QEMU running a boot-sector guest (BeepGuest) that sounds the PC speaker at 1 kHz and turns on
/// its keyboard's Num and Caps Lock lights: QEMU's audio and LED State messages as a real
/// machine makes them, through the session and through the window; and the window's capture of
/// a relative pointer, seen in QEMU's own input trace.
final class QEMUGuestInteropTests: XCTestCase {
    func startGuest(trace: [String] = []) throws -> QEMUMachine {
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-guest-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: scratch) }
        let args = try BeepGuest.arguments(in: scratch) + ["-name", "farcast-interop"] + trace.flatMap { ["-trace", $0] }
        return try startQEMU(args, running: true, vnc: ",audiodev=snd0")
    }

    func session(_ m: QEMUMachine) -> Session {
        var s = ClientSettings()
        s.securityMethods = [.type(SecurityType.none)]
        return Session(spec: "qemu", settings: s) { _ in
            try ConnectionPlan(target: .tcp(HostSpec(host: "127.0.0.1", port: m.port))).open(log: { _ in })
        }
    }

    /// The guest's lights reach the session as LED State: Num and Caps Lock on, Scroll off.
    func testTheGuestsKeyboardLightsArriveAsLEDState() throws {
        let m = try startGuest()
        let s = session(m)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        var all: [EngineEvent] = []
        let want = EngineEvent.lockLights(LockLights(scroll: false, num: true, caps: true))
        _ = poll(timeout: 10) { all += s.takeEvents(); return all.contains(want) }
        XCTAssertTrue(all.contains(want), "LED State from the guest: \(all.filter { if case .lockLights = $0 { true } else { false } })")
    }

    /// The speaker's square wave comes through QEMU's audio messages at 1 kHz.
    func testTheSpeakersToneArrivesAsAudio() throws {
        let m = try startGuest()
        let s = session(m)
        s.start()
        defer { s.stop(); s.waitUntilStopped(timeout: 2) }
        var all: [EngineEvent] = []
        XCTAssertTrue(poll(timeout: 10) { all += s.takeEvents(); return all.contains(.pointerMode(relative: true)) }, "ready: \(all)")
        s.setAudio(true)
        var sound: [UInt8] = [], began = false
        _ = poll(timeout: 10) {
            for e in s.takeEvents() {
                switch e {
                case .audioBegan: began = true
                case .audioData(let d): sound += d
                default: break
                }
            }
            return sound.count >= 44100 * 4
        }
        XCTAssertTrue(began, "audio began")
        XCTAssertGreaterThanOrEqual(sound.count, 44100 * 4, "a second of sound")
        let f = BeepGuest.measuredFrequency(s16Stereo: sound, rate: 44100)
        XCTAssertEqual(f, BeepGuest.frequency, accuracy: BeepGuest.frequency * 0.03, "the speaker's tone")
    }

    /// `--audio` in the window: the tone reaches SDL's audio device (its disk driver here, which
    /// writes what it plays to a file); and the window, whose local Caps and Num Lock are off,
    /// presses both once to bring the guest's in step (QEMU's trace shows the keys).
    func testTheWindowPlaysTheToneAndKeepsTheLocksInStep() throws {
        let m = try startGuest(trace: ["input_event_key_qcode"])
        let local = try startLocalXvfb(avoiding: [], size: "1024x768", dir: m.dir)
        let audio = m.dir.appendingPathComponent("played.raw")
        let viewer = try startViewerWindow(port: m.port, display: ":\(local)", dir: m.dir, ["--audio"],
                                           environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": audio.path])
        _ = try runTool("xdotool", ["mousemove", "--sync", "300", "200"], in: m.dir, environment: ["DISPLAY": ":\(local)"])
        let size = { ((try? FileManager.default.attributesOfItem(atPath: audio.path)[.size] as? Int) ?? nil) ?? 0 }
        XCTAssertTrue(poll(timeout: 15) { size() >= 44100 * 4 * 2 }, "SDL played \(size()) bytes: \(viewer.logTail())")
        let played = [UInt8](try Data(contentsOf: audio))
        // the last second: the device may begin with silence before the first message
        let f = BeepGuest.measuredFrequency(s16Stereo: Array(played.suffix(44100 * 4)), rate: 44100)
        XCTAssertEqual(f, BeepGuest.frequency, accuracy: BeepGuest.frequency * 0.03, "the tone through SDL")

        let keys = { m.log.split(separator: "\n").filter { $0.contains("input_event_key_qcode") } }
        XCTAssertTrue(poll(timeout: 5) { keys().filter { $0.contains("caps_lock") }.count >= 2 && keys().filter { $0.contains("num_lock") }.count >= 2 },
                      "Caps and Num Lock pressed and released: \(keys()) \(viewer.logTail())")
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(keys().count, 4, "pressed once each, no fight with a guest that ignores them: \(keys())")
    }

    /// QEMU with its PS/2 mouse takes relative motion: a click in the window captures the
    /// pointer (the X pointer is grabbed), motion reaches QEMU as deltas, Ctrl+Alt+G releases.
    func testAClickCapturesTheRelativePointerAndCtrlAltGReleasesIt() throws {
        let m = try startGuest(trace: ["input_event_rel"])
        let local = try startLocalXvfb(avoiding: [], size: "1024x768", dir: m.dir)
        let x = ["DISPLAY": ":\(local)"]
        let viewer = try startViewerWindow(port: m.port, display: ":\(local)", dir: m.dir)
        let grab = m.dir.appendingPathComponent("grab.py")
        try """
            import sys
            from Xlib import X, display
            d = display.Display(sys.argv[1])
            r = d.screen().root.grab_pointer(False, 0, X.GrabModeAsync, X.GrabModeAsync, X.NONE, X.NONE, X.CurrentTime)
            if r == X.GrabSuccess:
                d.ungrab_pointer(X.CurrentTime); d.sync()
            print("free" if r == X.GrabSuccess else "grabbed" if r == X.AlreadyGrabbed else r)
            """.write(to: grab, atomically: true, encoding: .utf8)
        let pointer = { String(decoding: ((try? runTool("python3", [grab.path, ":\(local)"], in: m.dir))?.stdout) ?? Data(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines) }
        let deltas = { () -> (x: Int, count: Int) in
            let lines = m.log.split(separator: "\n").filter { $0.contains("input_event_rel") && $0.contains("axis x") }
            let values = lines.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
            return (values.reduce(0, +), values.count)
        }
        XCTAssertTrue(poll(timeout: 10) { viewer.logTail(200).contains("remote pointer is relative") }, "pointer mode shown: \(viewer.logTail())")
        _ = try runTool("xdotool", ["mousemove", "--sync", "300", "200", "click", "1"], in: m.dir, environment: x)
        XCTAssertTrue(poll(timeout: 5) { pointer() == "grabbed" }, "captured: the X pointer is grabbed (\(pointer()))")
        let before = deltas()
        for _ in 0..<5 {
            _ = try runTool("xdotool", ["mousemove_relative", "--", "12", "0"], in: m.dir, environment: x)
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertTrue(poll(timeout: 5) { deltas().x - before.x >= 40 }, "deltas reached QEMU: \(deltas()) from \(before)")
        let moved = deltas()
        XCTAssertLessThanOrEqual(moved.x - before.x, 60 + 10, "sent as deltas, not positions: \(moved)")
        _ = try runTool("xdotool", ["key", "ctrl+alt+g"], in: m.dir, environment: x)
        XCTAssertTrue(poll(timeout: 5) { pointer() == "free" }, "released (\(pointer())): \(viewer.logTail())")
    }
}
