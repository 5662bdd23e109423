@testable import Interaction
import XCTest

/// The launcher's list, quick connect, form and delete confirmation as plain values.
final class LauncherTests: XCTestCase {
    func launcher() -> Launcher {
        var l = Launcher()
        l.setItems([
            LauncherItem(kind: .recent, title: "10.0.0.9:1", address: "10.0.0.9:1"),
            LauncherItem(kind: .saved, title: "Office", address: "office.example:1", colour: "blue"),
            LauncherItem(kind: .discovered, title: "Kitchen Pi", address: "kitchen.local::5900"),
            LauncherItem(kind: .saved, title: "Lab", address: "lab:2"),
        ])
        l.editValues = ["Office": ["address": "office.example:1", "colour": "blue", "quality": "5", "view-only": "yes"],
                        "Lab": ["address": "lab:2"]]
        l.layout(width: 1024, height: 768, touch: false)
        return l
    }

    func type(_ s: String, into l: inout Launcher) { for c in s { _ = l.key(.text(String(c))) } }

    func testItemsAreGroupedSavedRecentDiscovered() {
        let l = launcher()
        XCTAssertEqual(l.rows.map { if case .item(let it) = $0 { return it.title }; return "?" }, ["Office", "Lab", "10.0.0.9:1", "Kitchen Pi"])
        XCTAssertEqual(l.layout.headers.map(\.title), ["Saved connections", "Recent", "On this network"])
    }

    func testArrowsEnterAndEscape() {
        var l = launcher()
        XCTAssertEqual(l.key(.enter), .connect(l.rows.first.flatMap { if case .item(let i) = $0 { return i }; return nil }!))
        _ = l.key(.down); _ = l.key(.down)
        XCTAssertEqual(l.selectedItem?.title, "10.0.0.9:1")
        _ = l.key(.end)
        XCTAssertEqual(l.selectedItem?.title, "Kitchen Pi")
        _ = l.key(.down)
        XCTAssertEqual(l.selectedItem?.title, "Kitchen Pi", "stays on the last row")
        _ = l.key(.home); _ = l.key(.up)
        XCTAssertEqual(l.selectedItem?.title, "Office")
        XCTAssertEqual(l.key(.escape), .quit)
    }

    func testTypingFiltersAndQuickConnects() {
        var l = launcher()
        type("LA", into: &l)
        XCTAssertEqual(l.query, "LA")
        XCTAssertEqual(l.rows, [.item(LauncherItem(kind: .saved, title: "Lab", address: "lab:2")), .quickConnect("LA")])
        XCTAssertEqual(l.key(.enter), .connect(LauncherItem(kind: .saved, title: "Lab", address: "lab:2")), "the first match")
        _ = l.key(.down)
        XCTAssertEqual(l.key(.enter), .quickConnect("LA"))
        _ = l.key(.escape)
        XCTAssertEqual(l.query, "", "Esc clears the field first")
        type("vnc://ann@newhost:5901", into: &l)
        XCTAssertEqual(l.rows, [.quickConnect("vnc://ann@newhost:5901")])
        XCTAssertEqual(l.key(.enter), .quickConnect("vnc://ann@newhost:5901"))
        _ = l.key(.backspace)
        XCTAssertEqual(l.query, "vnc://ann@newhost:590")
        type("kitchen.LOCAL", into: &l)
        for _ in 0..<40 { _ = l.key(.backspace) }
        type("kitchen.LOCAL", into: &l)
        XCTAssertEqual(l.selectedItem?.title, "Kitchen Pi", "addresses match too, in any case")
    }

    func testAddSavesTheFormValues() {
        var l = launcher()
        type("new.example:3", into: &l)
        XCTAssertEqual(l.key(.newConnection), .textFocus(true))
        guard case .form(let f0) = l.mode else { return XCTFail("no form") }
        XCTAssertEqual(f0.title, "New connection")
        XCTAssertEqual(f0.values["address"], "new.example:3", "what was typed is the address")
        type("New box", into: &l)
        _ = l.key(.tab); _ = l.key(.tab)         // address, colour
        _ = l.key(.right); _ = l.key(.right)     // none → red → orange
        XCTAssertEqual(l.key(.tab), .textFocus(true), "user name: text")
        type("ann", into: &l)
        XCTAssertEqual(l.key(.tab), .textFocus(false), "a toggle: the keyboard can go")
        _ = l.key(.space)                         // remember password on
        guard case .save(let f)? = l.key(.enter) else { return XCTFail("Enter saves") }
        XCTAssertEqual(f.name, "New box")
        XCTAssertEqual(f.values["colour"], "orange")
        XCTAssertEqual(f.values["username"], "ann")
        XCTAssertEqual(f.values["remember-password"], "yes")
        XCTAssertEqual(f.originalName, nil)
        l.formRefused("address: bad")
        guard case .form(let refused) = l.mode else { return XCTFail("stays in the form") }
        XCTAssertEqual(refused.error, "address: bad")
        l.setItems(l.items + [LauncherItem(kind: .saved, title: "New box", address: "new.example:3")])
        l.saved(name: "New box")
        XCTAssertEqual(l.mode, .list)
        XCTAssertEqual(l.selectedItem?.title, "New box")
    }

    func testEditDuplicateAndDelete() {
        var l = launcher()
        _ = l.key(.edit)
        guard case .form(let f) = l.mode else { return XCTFail("no form") }
        XCTAssertEqual(f.originalName, "Office")
        XCTAssertEqual(f.values["quality"], "5")
        XCTAssertEqual(f.values["view-only"], "yes")
        XCTAssertEqual(f.buttons, [.save, .cancel, .duplicate, .delete])
        XCTAssertEqual(l.key(.escape), .textFocus(false))
        XCTAssertEqual(l.mode, .list)

        _ = l.key(.duplicate)
        guard case .form(let d) = l.mode else { return XCTFail("no form") }
        XCTAssertEqual(d.name, "Office (copy)")
        XCTAssertNil(d.originalName, "a duplicate is saved as a new entry")
        XCTAssertEqual(d.values["quality"], "5")
        _ = l.key(.escape)

        _ = l.key(.delete)
        XCTAssertEqual(l.mode, .confirmDelete(LauncherItem(kind: .saved, title: "Office", address: "office.example:1", colour: "blue")))
        XCTAssertNil(l.key(.escape))
        XCTAssertEqual(l.mode, .list)
        _ = l.key(.delete)
        XCTAssertEqual(l.key(.enter), .delete(name: "Office"))

        _ = l.key(.end)
        _ = l.key(.delete)
        XCTAssertEqual(l.mode, .list, "only saved entries are deleted")
        _ = l.key(.edit)
        guard case .form(let s) = l.mode else { return XCTFail("no form") }
        XCTAssertEqual(s.title, "Save connection")
        XCTAssertEqual(s.name, "Kitchen Pi")
        XCTAssertEqual(s.values["address"], "kitchen.local::5900")
    }

    func testTapsHitWhatIsDrawnAndTargetsAreLargeEnough() {
        var l = launcher()
        for touch in [false, true] {
            l.layout(width: 1024, height: 768, touch: touch)
            let all = [l.layout.queryField, l.layout.newButton] + l.layout.rowFrames + l.layout.editButtons
            for r in all { XCTAssertGreaterThanOrEqual(r.h, LauncherLayout.minTarget) }
        }
        func centre(_ r: ViewRect) -> ViewPoint { ViewPoint(x: r.x + r.w / 2, y: r.y + r.h / 2) }
        let lab = l.layout.rowFrames[1]
        XCTAssertEqual(l.tap(at: ViewPoint(x: lab.x + 20, y: lab.y + 20)), .connect(LauncherItem(kind: .saved, title: "Lab", address: "lab:2")))
        XCTAssertEqual(l.tap(at: centre(l.layout.editButtons[0])), .textFocus(true))
        guard case .form(let f) = l.mode else { return XCTFail("Edit opens the form") }
        XCTAssertEqual(f.originalName, "Office")
        l.layout(width: 1024, height: 768, touch: true)
        for r in l.layout.fieldFrames + l.layout.buttonFrames { XCTAssertGreaterThanOrEqual(r.h, LauncherLayout.minTarget) }
        // a toggle is flipped by a tap; the name field takes the keyboard
        let viewOnly = f.fields.firstIndex { $0.key == "view-only" }!
        XCTAssertEqual(l.tap(at: centre(l.layout.fieldFrames[viewOnly])), .textFocus(false))
        XCTAssertEqual(l.tap(at: centre(l.layout.fieldFrames[0])), .textFocus(true))
        guard case .save(let saved)? = l.tap(at: centre(l.layout.buttonFrames[0])) else { return XCTFail("Save") }
        XCTAssertEqual(saved.values["view-only"], "no")
        // Delete in the form asks first; the panel's buttons answer
        _ = l.tap(at: centre(l.layout.buttonFrames[3]))
        XCTAssertEqual(l.mode, .confirmDelete(LauncherItem(kind: .saved, title: "Office", address: "office.example:1", colour: "blue")))
        l.layout(width: 1024, height: 768, touch: true)
        XCTAssertEqual(l.tap(at: centre(l.layout.confirmYes)), .delete(name: "Office"))
        XCTAssertEqual(l.tap(at: centre(l.layout.newButton)), .textFocus(true))
        guard case .form = l.mode else { return XCTFail("+ opens a new form") }
    }

    func testLongListsScrollToTheSelection() {
        var l = Launcher()
        l.setItems((0..<50).map { LauncherItem(kind: .saved, title: "host \($0)", address: "h\($0)") })
        l.layout(width: 800, height: 600, touch: false)
        _ = l.key(.end)
        l.layout(width: 800, height: 600, touch: false)
        let last = l.layout.rowFrames[49]
        XCTAssertTrue(last.y >= l.layout.listArea.y && last.y + last.h <= l.layout.listArea.y + l.layout.listArea.h, "\(last)")
        XCTAssertEqual(l.tap(at: ViewPoint(x: last.x + 5, y: last.y + 5)), .connect(LauncherItem(kind: .saved, title: "host 49", address: "h49")))
        _ = l.key(.pageUp)
        XCTAssertLessThan(l.selected, 49)
    }

    func testOnScreenKeyboardKeysymsMapToKeys() {
        XCTAssertEqual(LauncherKey(keysym: 0x61), .text("a"))
        XCTAssertEqual(LauncherKey(keysym: 0x3a), .text(":"))
        XCTAssertEqual(LauncherKey(keysym: 0xff08), .backspace)
        XCTAssertEqual(LauncherKey(keysym: 0xff0d), .enter)
        XCTAssertNil(LauncherKey(keysym: 0xffe3))
    }
}
