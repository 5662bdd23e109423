import RFB
import XCTest
@testable import Interaction

/// The UI state machine: what keys, clicks and taps do over each layer.
final class ViewerUITests: XCTestCase {
    let context = ViewerUI.MenuContext(fullscreen: false, scaling: .fit, viewOnly: false, touchMode: .touch, keyboardShown: false)
    let twoScreens = ScreenLayout(width: 3840, height: 1080, screens: [
        Screen(id: 1, x: 0, y: 0, width: 1920, height: 1080), Screen(id: 2, x: 1920, y: 0, width: 1920, height: 1080),
    ])

    func K(_ k: UIKey, down: Bool = true, isRepeat: Bool = false, ctrlAlt: Bool = false) -> UIKeyEvent {
        UIKeyEvent(k, down: down, isRepeat: isRepeat, ctrlAlt: ctrlAlt)
    }

    func testDesktopKeys() {
        var ui = ViewerUI()
        XCTAssertEqual(ui.layer, .desktop)
        XCTAssertEqual(ui.key(K(.f8)), .handled([.openMenu]))
        XCTAssertEqual(ui.key(K(.f8, isRepeat: true)), .handled([]))
        XCTAssertEqual(ui.key(K(.f11)), .handled([.toggleFullscreen]))
        XCTAssertEqual(ui.key(K(.f11, isRepeat: true)), .handled([]))
        // releases and ordinary keys are the server's
        XCTAssertEqual(ui.key(K(.f8, down: false)), .desktop)
        XCTAssertEqual(ui.key(K(.escape)), .desktop)
        XCTAssertEqual(ui.key(K(.r)), .desktop)
        // one screen: F9 and Ctrl+Alt+PageDown go to the server
        XCTAssertEqual(ui.key(K(.f9)), .desktop)
        XCTAssertEqual(ui.key(K(.pageDown, ctrlAlt: true)), .desktop)
        ui.screenLayout = twoScreens
        XCTAssertEqual(ui.key(K(.f9)), .handled([.openPicker]))
        XCTAssertEqual(ui.key(K(.pageDown, ctrlAlt: true)), .handled([.cycleMonitor(forward: true)]))
        XCTAssertEqual(ui.key(K(.pageUp, ctrlAlt: true)), .handled([.cycleMonitor(forward: false)]))
        XCTAssertEqual(ui.key(K(.pageUp)), .desktop)
    }

    /// Ctrl+Alt+S screenshots, Ctrl+Alt+R records (not where recording is not offered); the
    /// letters alone go to the server.
    func testCaptureShortcuts() {
        var ui = ViewerUI()
        XCTAssertEqual(ui.key(UIKeyEvent(.s, ctrlAlt: true)), .handled([.menuItem(.screenshot)]))
        XCTAssertEqual(ui.key(UIKeyEvent(.r, ctrlAlt: true)), .handled([.menuItem(.toggleRecording)]))
        XCTAssertEqual(ui.key(UIKeyEvent(.s)), .desktop)
        XCTAssertEqual(ui.key(UIKeyEvent(.r)), .desktop)
        XCTAssertEqual(ui.key(UIKeyEvent(.s, isRepeat: true, ctrlAlt: true)), .handled([]))
        ui.lock.recording = false
        XCTAssertEqual(ui.key(UIKeyEvent(.r, ctrlAlt: true)), .desktop)
    }

    /// A kiosk's lock: every shortcut that stands for a menu entry asks the same check as the
    /// menu, so a locked menu locks them (the key goes to the desktop instead), a PIN menu
    /// offers them only through the menu, and screenshots and recording are there only when
    /// the kiosk enables them.
    func testLockedControlsAreLockedEverywhere() {
        var ui = ViewerUI()
        ui.screenLayout = twoScreens
        let shortcuts = [K(.f11), K(.f9), K(.pageDown, ctrlAlt: true), K(.s, ctrlAlt: true), K(.r, ctrlAlt: true), K(.i, ctrlAlt: true)]
        for lock in [ControlLock(menu: .locked), ControlLock(menu: .pin("2468"))] {
            ui.lock = lock
            for k in shortcuts { XCTAssertEqual(ui.key(k), .desktop, "\(lock.menu): \(k.key) got past the lock") }
            XCTAssertEqual(ui.key(K(.f8)), .handled([.openMenu]), "F8 asks the menu's own lock (the PIN pad)")
        }
        // behind the PIN, the menu (once open) has what the kiosk offers, no screenshot or recording
        ui.lock = ControlLock(menu: .pin("2468"), screenshots: false, recording: false)
        var c = context
        c.recording = false
        c.info = false
        ui.openMenu(c)
        let actions = ui.menu?.items.map(\.action) ?? []
        XCTAssertFalse(actions.contains(.screenshot))
        XCTAssertFalse(actions.contains(.toggleRecording))
        XCTAssertTrue(actions.contains(.toggleFullscreen) && actions.contains(.toggleInfo) && actions.contains(.disconnect), "\(actions)")
        XCTAssertEqual(ui.menu?.items.first { $0.action == .toggleInfo }?.separatorAbove, true, "the screenshot's rule stays")
        ui.closeMenu()
        ui.lock = ControlLock(menu: .pin("2468"), screenshots: true, recording: true)
        ui.openMenu(c)
        XCTAssertTrue(ui.menu?.items.contains { $0.action == .screenshot } == true)
        ui.closeMenu()
        // an open menu with screenshots and recording off: their shortcuts are off too
        ui.lock = ControlLock(menu: .open, screenshots: false, recording: false)
        XCTAssertEqual(ui.key(K(.s, ctrlAlt: true)), .desktop)
        XCTAssertEqual(ui.key(K(.r, ctrlAlt: true)), .desktop)
        XCTAssertEqual(ui.key(K(.f11)), .handled([.toggleFullscreen]))
        // input for the desktop stays the desktop's, whatever the lock
        for a: MenuAction in [.toggleKeyboard, .sendCtrlAltDel, .sendF8, .resetZoom] {
            XCTAssertTrue(ControlLock(menu: .locked, screenshots: false, recording: false).allows(a, via: .shortcut), "\(a)")
        }
    }

    /// Ctrl+Alt+I toggles the connection-info panel; the menu has its entry, checked while it shows.
    func testInfoShortcutAndMenuEntry() {
        var ui = ViewerUI()
        XCTAssertEqual(ui.key(UIKeyEvent(.i, ctrlAlt: true)), .handled([.menuItem(.toggleInfo)]))
        XCTAssertEqual(ui.key(UIKeyEvent(.i)), .desktop)
        XCTAssertEqual(ui.key(UIKeyEvent(.i, isRepeat: true, ctrlAlt: true)), .handled([]))
        let m = ViewerMenu(fullscreen: false, scaling: .fit, viewOnly: false, info: true)
        XCTAssertEqual(m.items.first { $0.action == .toggleInfo }?.checked, true)
        XCTAssertNil(ViewerMenu(fullscreen: false, scaling: .fit, viewOnly: false).items.first { $0.action == .toggleInfo })
    }

    func testMenuKeys() {
        var ui = ViewerUI()
        ui.openMenu(context)
        XCTAssertEqual(ui.layer, .menu)
        XCTAssertTrue(ui.coversDesktop)
        XCTAssertEqual(ui.key(K(.down)), .handled([.redraw]))
        XCTAssertEqual(ui.menu?.selected, 1)
        XCTAssertEqual(ui.key(K(.up)), .handled([.redraw]))
        XCTAssertEqual(ui.key(K(.end)), .handled([.redraw]))
        XCTAssertEqual(ui.menu?.items[ui.menu?.selected ?? 0].action, .disconnect)
        XCTAssertEqual(ui.key(K(.home)), .handled([.redraw]))
        XCTAssertEqual(ui.key(K(.down, down: false)), .handled([]), "a release in the menu goes nowhere")
        XCTAssertEqual(ui.key(K(.f11)), .handled([]), "F11 means nothing in the menu")
        // Enter chooses the selected entry (Full screen), the menu closes
        XCTAssertEqual(ui.key(K(.enter)), .handled([.menuChanged, .redraw, .toggleFullscreen]))
        XCTAssertNil(ui.menu)
        ui.openMenu(context)
        XCTAssertEqual(ui.key(K(.escape)), .handled([.menuChanged, .redraw]))
        ui.openMenu(context)
        // F8 again: the server gets F8 (not when it is the autorepeat)
        XCTAssertEqual(ui.key(K(.f8)), .handled([.sendF8, .menuChanged, .redraw]))
        ui.openMenu(context)
        XCTAssertEqual(ui.key(K(.f8, isRepeat: true)), .handled([.menuChanged, .redraw]))
        // entries the front end carries out
        ui.openMenu(context)
        guard let i = ui.menu?.items.firstIndex(where: { $0.action == .sendCtrlAltDel }) else { return XCTFail("entry") }
        XCTAssertEqual(ui.activate(i), [.menuChanged, .redraw, .menuItem(.sendCtrlAltDel)])
    }

    func testMenuByPointer() {
        var ui = ViewerUI()
        ui.openMenu(context)
        let rows = (0..<(ui.menu?.items.count ?? 0)).map { ViewRect(x: 100, y: 50 + Double($0) * 20, w: 200, h: 20) }
        ui.setMenuLayout(frame: ViewRect(x: 90, y: 40, w: 220, h: 300), rows: rows)
        XCTAssertEqual(ui.motion(ViewPoint(x: 150, y: 75)), .handled([.redraw]))
        XCTAssertEqual(ui.menu?.selected, 1)
        XCTAssertEqual(ui.motion(ViewPoint(x: 150, y: 76)), .handled([]), "same row: nothing to draw")
        XCTAssertEqual(ui.wheel(dy: 1), .handled([.redraw]))
        XCTAssertEqual(ui.menu?.selected, 0)
        XCTAssertEqual(ui.wheel(dy: 0), .handled([]))
        // a press on a row does nothing; the release chooses it
        XCTAssertEqual(ui.button(left: true, down: true, at: ViewPoint(x: 150, y: 75)), .handled([]))
        XCTAssertEqual(ui.button(left: true, down: false, at: ViewPoint(x: 150, y: 75)),
                       .handled([.menuChanged, .redraw, .setScaling(.fit)]))
        // a press outside closes it
        ui.openMenu(context)
        ui.setMenuLayout(frame: ViewRect(x: 90, y: 40, w: 220, h: 300), rows: rows)
        XCTAssertEqual(ui.button(left: true, down: true, at: ViewPoint(x: 10, y: 10)), .handled([.menuChanged, .redraw]))
        XCTAssertEqual(ui.layer, .desktop)
        XCTAssertEqual(ui.motion(ViewPoint(x: 10, y: 10)), .desktop)
        XCTAssertEqual(ui.wheel(dy: 1), .desktop)
    }

    func testReconnectingCountdown() {
        var ui = ViewerUI()
        ui.reconnecting = true
        XCTAssertEqual(ui.layer, .reconnecting)
        XCTAssertTrue(ui.dimsDesktop)
        XCTAssertTrue(ui.fingerClicks)
        XCTAssertEqual(ui.key(K(.r)), .handled([.retryNow]))
        XCTAssertEqual(ui.key(K(.r, isRepeat: true)), .handled([]))
        XCTAssertEqual(ui.key(K(.escape)), .handled([.quit]))
        XCTAssertEqual(ui.key(K(.enter)), .handled([]))
        XCTAssertEqual(ui.key(K(.f8)), .handled([]), "no menu during the countdown")
        // a click or tap retries now
        XCTAssertEqual(ui.button(left: true, down: true, at: ViewPoint(x: 5, y: 5)), .handled([.retryNow]))
        XCTAssertEqual(ui.button(left: true, down: false, at: ViewPoint(x: 5, y: 5)), .handled([]))
        XCTAssertEqual(ViewerUI.reconnectHint(seconds: 3, attempt: 2),
                       "Reconnecting in 3 s (attempt 2) — press R or tap to retry now, Esc to give up")
        XCTAssertEqual(ViewerUI.reconnectHint(seconds: 3, attempt: 2, canQuit: false),
                       "Reconnecting in 3 s (attempt 2) — press R or tap to retry now")
        var kiosk = ViewerUI()
        kiosk.reconnecting = true
        kiosk.canQuit = false
        XCTAssertEqual(kiosk.key(UIKeyEvent(.escape)), .handled([]), "a kiosk is not quit with Esc")
    }

    func testEndedMessage() {
        var ui = ViewerUI()
        ui.openMenu(context)
        ui.end(message: ViewerUI.headline("server closed the connection", everReady: true), offerReconnect: true)
        XCTAssertNil(ui.menu, "the end closes the menu")
        XCTAssertEqual(ui.layer, .ended)
        XCTAssertEqual(ui.ended?.message, "Connection lost: server closed the connection")
        XCTAssertEqual(ui.key(K(.modifier)), .handled([]), "a modifier alone does not dismiss")
        XCTAssertEqual(ui.key(K(.r)), .handled([.reconnect]))
        XCTAssertEqual(ui.key(K(.escape)), .handled([.quit]))
        XCTAssertEqual(ui.key(K(.enter, down: false)), .handled([]))
        // without the offer, R closes like any key
        ui.end(message: "Authentication cancelled", offerReconnect: false)
        XCTAssertEqual(ui.key(K(.r)), .handled([.quit]))
        // a click on the message is nobody's (the front end sends nothing after the end)
        XCTAssertEqual(ui.button(left: true, down: true, at: ViewPoint(x: 5, y: 5)), .desktop)
        XCTAssertEqual(ViewerUI.endedHint(offerReconnect: true), "Press R to reconnect, Esc or Enter to close")
        XCTAssertEqual(ViewerUI.endedHint(offerReconnect: false), "Press Esc or Enter to close")
        XCTAssertEqual(ViewerUI.headline("cannot connect to h: refused", everReady: false), "Cannot connect to h: refused")
        ui.clearEnded()
        XCTAssertEqual(ui.layer, .desktop)
    }

    func testPickerKeysAndTaps() {
        var ui = ViewerUI()
        XCTAssertFalse(ui.openPicker(), "one screen: no picker")
        ui.screenLayout = twoScreens
        ui.openMenu(context)
        XCTAssertTrue(ui.menu?.items.contains { $0.action == .openPicker } == true)
        XCTAssertTrue(ui.openPicker())
        XCTAssertNil(ui.menu, "the picker replaces the menu")
        XCTAssertEqual(ui.layer, .picker)
        XCTAssertEqual(ui.key(K(.right)), .handled([.redraw]))
        XCTAssertEqual(ui.key(K(.f9)), .handled([.pickerChanged, .redraw]), "F9 again closes it")
        XCTAssertNil(ui.picker)
        ui.openPicker()
        XCTAssertEqual(ui.key(K(.digit(2))), .handled([.pickerChanged, .redraw, .chooseMonitor(.screen(id: 2))]))
        ui.openPicker()
        XCTAssertEqual(ui.key(K(.a)), .handled([.pickerChanged, .redraw, .chooseMonitor(.all)]))
        // a tap on a screen's box chooses it
        ui.openPicker()
        guard let p = ui.picker else { return XCTFail("picker") }
        let g = p.geometry(in: ViewRect(x: 0, y: 0, w: 800, h: 400))
        ui.pickerGeometry = g
        guard let box = g.tiles.first(where: { $0.choice == .screen(id: 1) })?.rect else { return XCTFail("box") }
        let c = ViewPoint(x: box.x + box.w / 2, y: box.y + box.h / 2)
        XCTAssertEqual(ui.button(left: false, down: true, at: c), .handled([]), "only the left button chooses")
        XCTAssertEqual(ui.button(left: true, down: true, at: c), .handled([.pickerChanged, .redraw, .chooseMonitor(.screen(id: 1))]))
        XCTAssertNil(ui.pickerGeometry)
    }

    func testPromptIsOnTop() {
        var ui = ViewerUI()
        ui.openMenu(context)
        ui.setPrompt(shown: true)
        XCTAssertNil(ui.menu, "a prompt closes the menu")
        ui.reconnecting = true
        XCTAssertEqual(ui.layer, .prompt)
        XCTAssertTrue(ui.coversDesktop)
        ui.setPrompt(shown: false)
        XCTAssertEqual(ui.layer, .reconnecting)
    }
}
