import Foundation
import RFB
@testable import VNCSession
import XCTest

/// A user's mistake is a ConfigError (never a ProtocolError, the server's), its text unchanged.
final class ConfigErrorTests: XCTestCase {
    func assertConfigError(_ body: @autoclosure () throws -> Any, _ message: String,
                           file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) {
            XCTAssertEqual($0 as? ConfigError, ConfigError(message), "\($0) (\(type(of: $0)))", file: file, line: line)
            XCTAssertFalse($0 is ProtocolError, file: file, line: line)
        }
    }

    func testUserInputMistakes() {
        assertConfigError(try HostSpec.parse(""), "empty host: give e.g. localhost:1, host::5901 or [::1]:0")
        assertConfigError(try HostSpec.parse("h:x"), "'h:x': display 'x' after ':' must be a number (host:1 is port 5901; use host::PORT for a port)")
        assertConfigError(try ConnectionTarget.parse("vnc://u:pw@h"), "'vnc://u:pw@h': passwords are not accepted in a URI; use --password-file or VNC_PASSWORD")
        assertConfigError(try ReconnectPolicy.parse("sometimes"), "--reconnect takes never, always or a number of attempts (got 'sometimes')")
        assertConfigError(try SocketTransport.checkGateway("-oProxyCommand=x"), "the --via gateway '-oProxyCommand=x' is not a host name")
        assertConfigError(try Encoding.parseList(""), "empty encoding list; give e.g. zrle,copyrect")
        assertConfigError(try SecurityMethod.parseList(""), "empty security type list")
        var c = SavedConnection(name: "a", address: "h")
        assertConfigError(try c.set("quality", "11"), "quality takes 0 to 9 or lossless, not '11'")
        assertConfigError(try SavedConnectionsFile.parse("[a]\nhots = b", file: "f"),
                          "f line 2: unknown key 'hots' (known: \(SavedConnection.keys.joined(separator: ", ")))")
        assertConfigError(try ConnectionImport.tigerVNC("hello", name: "x"), "not a TigerVNC file: the first line is not '\(ConnectionImport.tigerVNCHeader)'")
    }

    func testPlanWithAGatewayNeedsAHostName() {
        var plan = ConnectionPlan(target: .unix("/tmp/s"), via: "gw")
        plan.searchPath = "/nonexistent"
        assertConfigError(try plan.open(), "--via works with host names, not unix:/tmp/s")
    }
}
