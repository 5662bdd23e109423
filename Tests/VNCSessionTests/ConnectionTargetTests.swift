import XCTest
@testable import VNCSession

final class ConnectionTargetTests: XCTestCase {
    func testURIsAndUnixAndHostSyntax() throws {
        let cases: [(String, ConnectionTarget, String?)] = [
            ("vnc://host", .tcp(HostSpec(host: "host", port: 5900)), nil),
            ("vnc://host:5901", .tcp(HostSpec(host: "host", port: 5901)), nil),
            ("VNC://alice@host:6000/", .tcp(HostSpec(host: "host", port: 6000)), "alice"),
            ("vnc://[::1]:5902", .tcp(HostSpec(host: "::1", port: 5902)), nil),
            ("vnc://bob%40corp@[2001:db8::1]", .tcp(HostSpec(host: "2001:db8::1", port: 5900)), "bob@corp"),
            ("vnc://host?ConnectionName=x", .tcp(HostSpec(host: "host", port: 5900)), nil),
            ("unix:/tmp/vnc.sock", .unix("/tmp/vnc.sock"), nil),
            ("host:2", .tcp(HostSpec(host: "host", port: 5902)), nil),
            ("[::1]::7000", .tcp(HostSpec(host: "::1", port: 7000)), nil),
        ]
        for (text, target, user) in cases {
            let p = try ConnectionTarget.parse(text)
            XCTAssertEqual(p.target, target, text)
            XCTAssertEqual(p.username, user, text)
        }
    }

    func testBadTargetsSayWhy() {
        let cases: [(String, String)] = [
            ("vnc://user:secret@host", "passwords are not accepted"),
            ("vnc://host?VncPassword=x", "passwords are not accepted"),
            ("vnc://host:99999", "1 to 65535"),
            ("vnc://host/path", "no path"),
            ("vnc://", "no host"),
            ("vnc://[::1", "needs its ']'"),
            ("unix:", "give the socket's path"),
        ]
        for (text, fragment) in cases {
            XCTAssertThrowsError(try ConnectionTarget.parse(text), text) {
                XCTAssertTrue("\($0)".contains(fragment), "'\(text)': \($0)")
            }
        }
    }

    func testGatewaySplit() {
        XCTAssertTrue(SocketTransport.splitGateway("alice@gw:2222") == ("alice@gw", 2222))
        XCTAssertTrue(SocketTransport.splitGateway("gw") == ("gw", nil))
        XCTAssertTrue(SocketTransport.splitGateway("[::1]") == ("[::1]", nil))
    }
}
