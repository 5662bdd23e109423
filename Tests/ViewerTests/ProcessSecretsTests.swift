import Foundation
@testable import viewer
import VNCSession
import XCTest

/// VNC_PASSWORD, once the viewer has taken it at start, is in no child's environment (ssh for
/// --via here), and the process still has it.
final class ProcessSecretsTests: XCTestCase {
    func testTakenPasswordStaysHome() throws {
        let d = NSTemporaryDirectory() + "farcast-ssh-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: d) }
        let script = d + "/ssh"
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" > \(d)/args\nenv > \(d)/env\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let ssh = (cmd: [script], args: d + "/args", env: d + "/env")

        setenv("VNC_PASSWORD", "hunter22", 1)
        ProcessSecrets.secureProcess()
        XCTAssertEqual(ProcessSecrets.vncPassword?.copy().withBytes { Array($0) }, Array("hunter22".utf8), "kept in the process")
        let t = try SocketTransport.connectVia(gateway: "me@gw", target: HostSpec(host: "h", port: 5901), sshCommand: ssh.cmd)
        defer { t.close() }
        XCTAssertTrue(poll { FileManager.default.fileExists(atPath: ssh.env) })
        Thread.sleep(forTimeInterval: 0.2)
        let args = try String(contentsOfFile: ssh.args, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(Array(args.suffix(4)), ["-W", "h:5901", "--", "me@gw"])
        let env = try String(contentsOfFile: ssh.env, encoding: .utf8)
        XCTAssertFalse(env.contains("VNC_PASSWORD"), "the child has no VNC_PASSWORD")
        XCTAssertFalse(env.contains("hunter22"))
    }

    func poll(_ timeout: Double = 5, _ cond: () -> Bool) -> Bool {
        let until = Date(timeIntervalSinceNow: timeout)
        while Date() < until { if cond() { return true }; Thread.sleep(forTimeInterval: 0.02) }
        return cond()
    }
}
