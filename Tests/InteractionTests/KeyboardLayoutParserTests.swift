import XCTest
@testable import Interaction

/// What the layout tools and files print, parsed from strings.
final class KeyboardLayoutParserTests: XCTestCase {
    func testOverrideSyntax() {
        XCTAssertEqual(KeyboardLayoutParser.parseOverride("de"), KeyboardLayoutSpec(layout: "de"))
        XCTAssertEqual(KeyboardLayoutParser.parseOverride("de,nodeadkeys"), KeyboardLayoutSpec(layout: "de", variant: "nodeadkeys"))
        XCTAssertEqual(KeyboardLayoutParser.parseOverride(" fr(bepo) "), KeyboardLayoutSpec(layout: "fr", variant: "bepo"))
        XCTAssertNil(KeyboardLayoutParser.parseOverride(""))
        XCTAssertNil(KeyboardLayoutParser.parseOverride(",x"))
    }

    func testParsers() {
        let query = """
            rules:      evdev
            model:      pc105
            layout:     us,ru
            variant:    ,
            options:    grp:alt_shift_toggle
            """
        XCTAssertEqual(KeyboardLayoutParser.parseSetxkbmapQuery(query),
                       KeyboardLayoutSpec(rules: "evdev", model: "pc105", layout: "us,ru", variant: ",", options: "grp:alt_shift_toggle"))
        XCTAssertNil(KeyboardLayoutParser.parseSetxkbmapQuery("rules: evdev\n"))

        XCTAssertEqual(KeyboardLayoutParser.parseXKBRulesNames(#"_XKB_RULES_NAMES(STRING) = "evdev", "pc105", "de", "nodeadkeys", """#),
                       KeyboardLayoutSpec(rules: "evdev", model: "pc105", layout: "de", variant: "nodeadkeys", options: ""))
        XCTAssertNil(KeyboardLayoutParser.parseXKBRulesNames("_XKB_RULES_NAMES:  not found."))

        XCTAssertEqual(KeyboardLayoutParser.parseDefaultKeyboard("XKBLAYOUT='de' # German\nexport XKBVARIANT=nodeadkeys\n"),
                       KeyboardLayoutSpec(layout: "de", variant: "nodeadkeys"))
    }

    func testXKBDefaults() {
        XCTAssertEqual(KeyboardLayoutParser.parseXKBDefaults(["XKB_DEFAULT_LAYOUT": "fr", "XKB_DEFAULT_VARIANT": "bepo",
                                                               "XKB_DEFAULT_MODEL": "pc104", "XKB_DEFAULT_OPTIONS": "compose:ralt"]),
                       KeyboardLayoutSpec(rules: "evdev", model: "pc104", layout: "fr", variant: "bepo", options: "compose:ralt"))
        XCTAssertNil(KeyboardLayoutParser.parseXKBDefaults(["XKB_DEFAULT_LAYOUT": " ", "XKB_DEFAULT_MODEL": "pc104"]))
        XCTAssertNil(KeyboardLayoutParser.parseXKBDefaults([:]))
    }
}
