import XCTest
@testable import VNCSession

final class ReconnectPolicyTests: XCTestCase {
    func testParseAndAllow() throws {
        XCTAssertEqual(try ReconnectPolicy.parse("never").mode, .never)
        XCTAssertEqual(try ReconnectPolicy.parse("always").mode, .always)
        XCTAssertEqual(try ReconnectPolicy.parse("3").mode, .times(3))
        XCTAssertThrowsError(try ReconnectPolicy.parse("sometimes")) { XCTAssertTrue("\($0)".contains("never, always or a number")) }
        let p = try ReconnectPolicy.parse("3")
        XCTAssertTrue(p.allows(attempt: 3))
        XCTAssertFalse(p.allows(attempt: 4))
        XCTAssertFalse(ReconnectPolicy(mode: .never).allows(attempt: 1))
    }

    func testBackoffIsExponentialCappedAndJittered() {
        let a = ReconnectPolicy(mode: .always)
        XCTAssertEqual(a.delay(attempt: 1, unit: 0.5), 1, accuracy: 1e-9)
        XCTAssertEqual(a.delay(attempt: 4, unit: 0.5), 8, accuracy: 1e-9)
        XCTAssertEqual(a.delay(attempt: 20, unit: 0.5), 30, accuracy: 1e-9)
        XCTAssertEqual(a.delay(attempt: 3, unit: 0), 4 * 0.8, accuracy: 1e-9)
        XCTAssertEqual(a.delay(attempt: 3, unit: 0.999999), 4 * 1.2, accuracy: 1e-5)
    }
}
