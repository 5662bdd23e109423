import Foundation
import RFB
@testable import VNCSession
import XCTest

/// What reaches ssh (--via): never a gateway that ssh would read as an option, `--` before the
/// gateway (that VNC_PASSWORD never does: ViewerTests' ProcessSecretsTests).
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

    func testGatewayIsNeverAnOption() throws {
        let ssh = try fakeSSH()
        XCTAssertThrowsError(try SocketTransport.connectVia(gateway: "-oProxyCommand=touch /tmp/x", target: HostSpec(host: "h", port: 5900),
                                                            sshCommand: ssh.cmd)) { XCTAssertTrue("\($0)".contains("not a host name"), "\($0)") }
        XCTAssertThrowsError(try SocketTransport.connectVia(gateway: "gw", target: HostSpec(host: "-oFoo=bar", port: 5900),
                                                            sshCommand: ssh.cmd)) { XCTAssertTrue("\($0)".contains("not a host name"), "\($0)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: ssh.args), "ssh never ran")

        let t = try SocketTransport.connectVia(gateway: "me@gw", target: HostSpec(host: "h", port: 5901), sshCommand: ssh.cmd)
        defer { t.close() }
        XCTAssertTrue(poll { FileManager.default.fileExists(atPath: ssh.env) })
        Thread.sleep(forTimeInterval: 0.2)
        let args = try String(contentsOfFile: ssh.args, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(Array(args.suffix(4)), ["-W", "h:5901", "--", "me@gw"])
    }

    func poll(_ timeout: Double = 5, _ cond: () -> Bool) -> Bool {
        let until = Date(timeIntervalSinceNow: timeout)
        while Date() < until { if cond() { return true }; Thread.sleep(forTimeInterval: 0.02) }
        return cond()
    }
}
