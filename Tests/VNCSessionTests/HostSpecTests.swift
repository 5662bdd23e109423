import XCTest
@testable import VNCSession

final class HostSpecTests: XCTestCase {
    func testForms() throws {
        let cases: [(String, String, Int)] = [
            ("host", "host", 5900), ("host:1", "host", 5901), ("host:99", "host", 5999),
            ("host:5901", "host", 5901), ("host::5901", "host", 5901), ("host::1", "host", 1),
            (":2", "localhost", 5902), ("10.0.0.5:0", "10.0.0.5", 5900),
            ("[::1]", "::1", 5900), ("[::1]:3", "::1", 5903), ("[fe80::1%eth0]::6000", "fe80::1%eth0", 6000),
            ("::1", "::1", 5900), ("fe80::1:2:3", "fe80::1:2:3", 5900), ("2001:db8::7", "2001:db8::7", 5900),
            ("  padded:1 ", "padded", 5901),
        ]
        for (text, host, port) in cases {
            XCTAssertEqual(try HostSpec.parse(text), HostSpec(host: host, port: port), text)
        }
    }

    func testBadInputSaysWhatAndHow() {
        let cases: [(String, String)] = [
            ("", "empty host"), ("host:abc", "must be a number"), ("host::0", "1 to 65535"),
            ("host::70000", "1 to 65535"), ("host:70000", "above 65535"), ("[::1", "needs its ']'"),
            ("[]:1", "empty address"), ("host:-1", "must be a number"),
        ]
        for (text, fragment) in cases {
            XCTAssertThrowsError(try HostSpec.parse(text), text) {
                XCTAssertTrue("\($0)".contains(fragment), "'\(text)': \($0)")
            }
        }
    }
}
