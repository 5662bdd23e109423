import Foundation
import XCTest

/// A QEMU machine with its VNC server on loopback and a QMP socket; no disk unless `extra`
/// gives one. Its log (with any `-trace` lines) is `dir/qemu.log`.
struct QEMUMachine {
    let port: Int
    let qmp: String
    let dir: URL
    let process: ChildProcess
    var log: String { (try? String(contentsOf: dir.appendingPathComponent("qemu.log"), encoding: .utf8)) ?? "" }

    /// Runs QMP commands (JSON objects, e.g. `{"execute": "stop"}`) in order, each answered
    /// before the next; fails on an error answer.
    func qmp(_ commands: [String]) throws {
        let script = dir.appendingPathComponent("qmp-run.py")
        try """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
            f.readline()
            for cmd in ['{"execute": "qmp_capabilities"}'] + sys.argv[2:]:
                f.write(cmd + "\\n"); f.flush()
                while "return" not in (line := f.readline()):
                    if not line or '"error"' in line: sys.exit(cmd + ": " + line)
            """.write(to: script, atomically: true, encoding: .utf8)
        try runTool("python3", [script.path, qmp] + commands, in: dir)
    }

    /// QEMU's own picture of its display (QMP screendump).
    func screendump() throws -> RGBImage {
        let path = dir.appendingPathComponent("screendump-\(UUID().uuidString.prefix(6)).ppm").path
        try qmp(["{\"execute\": \"screendump\", \"arguments\": {\"filename\": \"\(path)\"}}"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try PPM.read(path: path)
    }
}

extension XCTestCase {
    /// Starts QEMU (paused unless `running`) with the VNC options `vnc` after the display number.
    func startQEMU(_ extra: [String], running: Bool = false, vnc: String = ",power-control=on") throws -> QEMUMachine {
        guard let qemu = InteropTools.path("qemu-system-x86_64") else {
            throw XCTSkip("qemu-system-x86_64 not installed: run scripts/install-deps.sh (qemu-system-x86)")
        }
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-qemu-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let qmp = dir.appendingPathComponent("qmp.sock").path
        for _ in 0..<5 {
            let port = try Loopback.freePort()
            guard port > 5900 else { continue }
            let child = try ChildProcess(name: "qemu", executable: qemu,
                                         arguments: ["-nodefaults"] + (running ? [] : ["-S"]) + ["-display", "none", "-vga", "std",
                                                     "-vnc", "\(Loopback.host):\(port - 5900)\(vnc)",
                                                     "-qmp", "unix:\(qmp),server=on,wait=off"] + extra,
                                         logURL: dir.appendingPathComponent("qemu.log"))
            addTeardownBlock { child.stop() }
            if poll(timeout: 15, { Loopback.isListening(port: port) || !child.isRunning }), child.isRunning {
                return QEMUMachine(port: port, qmp: qmp, dir: dir, process: child)
            }
            child.stop()
        }
        throw HarnessError("QEMU did not start")
    }
}

/// A guest of 42 bytes in a boot sector: QEMU's VNC server has sound and keyboard lights to
/// report only when a guest makes them, and a firmware alone makes neither. It starts the PC
/// speaker on a 1 kHz square wave (PIT channel 2, mode 3), sets the keyboard's Num and Caps
/// Lock lights (command 0xED, then 0b110) and halts with interrupts off.
enum BeepGuest {
    static let frequency = 1000.0
    static let code: [UInt8] = [
        0xFA,                   // cli
        0xB0, 0xB6, 0xE6, 0x43, // PIT: channel 2, low then high byte, mode 3 (square wave)
        0xB0, 0xA9, 0xE6, 0x42, // divisor 1193 = 0x04A9: 1 193 182 Hz / 1193 = 1000 Hz
        0xB0, 0x04, 0xE6, 0x42,
        0xE4, 0x61, 0x0C, 0x03, 0xE6, 0x61, // port 0x61 |= 3: gate the PIT into the speaker
        0xE4, 0x64, 0xA8, 0x02, 0x75, 0xFA, // wait while the controller's input buffer is full
        0xB0, 0xED, 0xE6, 0x60,             // keyboard: set the lights...
        0xE4, 0x64, 0xA8, 0x02, 0x75, 0xFA,
        0xB0, 0x06, 0xE6, 0x60,             // ...to Num and Caps Lock
        0xF4, 0xEB, 0xFD,                   // hlt, for ever
    ]

    /// The boot sector (code, padding, the 0x55AA signature) written into `dir`; QEMU arguments
    /// that boot it with the PC speaker on the audio device `audiodev` (a `none` backend).
    static func arguments(in dir: URL) throws -> [String] {
        let image = dir.appendingPathComponent("beep.img")
        try Data(code + [UInt8](repeating: 0, count: 510 - code.count) + [0x55, 0xAA]).write(to: image)
        return ["-audiodev", "none,id=snd0", "-machine", "pc,pcspk-audiodev=snd0",
                "-drive", "format=raw,if=floppy,file=\(image.path)"]
    }

    /// The frequency of a square wave in signed 16-bit little-endian stereo at `rate` Hz, from
    /// its crossings of the mean of the left channel.
    static func measuredFrequency(s16Stereo b: [UInt8], rate: Double) -> Double {
        let n = b.count / 4
        guard n > 0 else { return 0 }
        var samples = [Int](repeating: 0, count: n)
        for i in 0..<n { samples[i] = Int(Int16(bitPattern: UInt16(b[4 * i]) | UInt16(b[4 * i + 1]) << 8)) }
        let mean = samples.reduce(0, +) / n
        var crossings = 0
        for i in 1..<n where (samples[i - 1] < mean) != (samples[i] < mean) { crossings += 1 }
        return Double(crossings) / 2 / (Double(n) / rate)
    }
}
