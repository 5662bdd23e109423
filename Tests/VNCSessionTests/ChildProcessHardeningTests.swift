import Foundation
import RFB
@testable import VNCSession
import XCTest

/// What reaches ssh (--via): never a gateway that ssh would read as an option, `--` before the
/// gateway, and (once the process has taken it) never VNC_PASSWORD in its environment.
final class ChildProcessHardeningTests: XCTestCase {
    /// A stand-in ssh that writes its arguments and environment to files, then exits.
    func fakeSSH() throws -> (cmd: [String], args: String, env: String) {
        let d = NSTemporaryDirectory() + "farcast-ssh-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: d) }
        let script = d + "/ssh"
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" > \(d)/args\nenv > \(d)/env\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        return ([script], d + "/args", d + "/env")
    }

    func testGatewayIsNeverAnOptionAndSecretsStayHome() throws {
        let ssh = try fakeSSH()
        XCTAssertThrowsError(try SocketTransport.connectVia(gateway: "-oProxyCommand=touch /tmp/x", target: HostSpec(host: "h", port: 5900),
                                                            sshCommand: ssh.cmd)) { XCTAssertTrue("\($0)".contains("not a host name"), "\($0)") }
        XCTAssertThrowsError(try SocketTransport.connectVia(gateway: "gw", target: HostSpec(host: "-oFoo=bar", port: 5900),
                                                            sshCommand: ssh.cmd)) { XCTAssertTrue("\($0)".contains("not a host name"), "\($0)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: ssh.args), "ssh never ran")

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
