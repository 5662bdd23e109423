import CSDL2
import Foundation
import Interaction
@testable import SDLViewer
import VNCSession
import XCTest

/// The launcher's window under SDL's dummy driver: SDL key, text and mouse events go through
/// the real event handling and drawing; the saved-connections file and the started process
/// (a script standing in for the viewer, recording its arguments) show what happened.
final class LauncherWindowTests: XCTestCase {
    var dir = ""
    var oldCache: String?

    override func setUpWithError() throws {
        try SDLTest.require()
        dir = NSTemporaryDirectory() + "farcast-launcher-ui-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        oldCache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
        setenv("XDG_CACHE_HOME", dir + "/cache", 1)
    }

    override func tearDown() {
        if let oldCache { setenv("XDG_CACHE_HOME", oldCache, 1) } else { unsetenv("XDG_CACHE_HOME") }
        try? FileManager.default.removeItem(atPath: dir)
    }

    func key(_ sc: SDL_Scancode, sym: Int32 = 0, ctrl: Bool = false) -> SDL_Event {
        var e = SDL_Event()
        e.type = SDL_KEYDOWN.rawValue
        e.key.keysym.scancode = sc
        e.key.keysym.sym = sym
        e.key.keysym.mod = UInt16(ctrl ? KMOD_LCTRL.rawValue : 0)
        return e
    }

    func text(_ s: String) -> SDL_Event {
        var e = SDL_Event()
        e.type = SDL_TEXTINPUT.rawValue
        withUnsafeMutableBytes(of: &e.text.text) { b in
            for (i, c) in s.utf8.prefix(31).enumerated() { b[i] = c }
        }
        return e
    }

    func click(_ p: ViewPoint) -> SDL_Event {
        var e = SDL_Event()
        e.type = SDL_MOUSEBUTTONDOWN.rawValue
        e.button.button = UInt8(SDL_BUTTON_LEFT)
        e.button.x = Int32(p.x); e.button.y = Int32(p.y)
        return e
    }

    func testNavigateAddEditDeleteFilterAndQuickConnect() throws {
        let path = dir + "/farcast/connections"
        let store = SavedConnectionStore(path: path)
        var f = SavedConnectionsFile()
        f.connections = [SavedConnection(name: "Office", address: "office:1"), SavedConnection(name: "Lab", address: "lab:2")]
        try store.save(f)
        // the "viewer": records its arguments and ends at once, as a failed session would
        let args = dir + "/args"
        let script = dir + "/fake-viewer"
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" > \(args)\necho 'viewer: no such host' >&2\nexit 1\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let w = LauncherWindow(store: store, recent: RecentConnections(path: dir + "/recent"),
                               thumbnailDirectory: SessionThumbnails.directory(env: ProcessInfo.processInfo.environment), executable: script)
        w.discoveryEnabled = false
        try w.open()
        defer { w.discovery?.stop(); w.teardown() }
        func send(_ events: SDL_Event...) { for e in events { _ = w.handle(e) }; w.draw() }

        // navigate
        send(key(SDL_SCANCODE_DOWN))
        XCTAssertEqual(w.state.selectedItem?.title, "Lab")
        send(key(SDL_SCANCODE_UP))
        XCTAssertEqual(w.state.selectedItem?.title, "Office")

        // add: Ctrl+N, a name, Tab, an address, Enter
        send(key(SDL_SCANCODE_N, sym: 0x6e, ctrl: true), text("Pi"), key(SDL_SCANCODE_TAB), text("pi.local:1"), key(SDL_SCANCODE_RETURN))
        XCTAssertEqual(w.state.mode, .list)
        XCTAssertEqual(SavedConnectionStore(path: path).contents.connections.map(\.name), ["Office", "Lab", "Pi"])
        XCTAssertEqual(w.state.selectedItem?.title, "Pi")

        // a refused form stays open with the reason
        send(key(SDL_SCANCODE_N, sym: 0x6e, ctrl: true), text("Bad"), key(SDL_SCANCODE_TAB), text("vnc://u:secret@h"), key(SDL_SCANCODE_RETURN))
        guard case .form(let refused) = w.state.mode else { return XCTFail("the form stays") }
        XCTAssertTrue(refused.error?.contains("address") == true, refused.error ?? "")
        send(key(SDL_SCANCODE_ESCAPE))
        XCTAssertEqual(w.state.mode, .list)

        // edit (F2): view only on, saved
        send(key(SDL_SCANCODE_F2))
        guard case .form(let form) = w.state.mode, let viewOnly = form.fields.firstIndex(where: { $0.key == "view-only" }) else { return XCTFail("edit form") }
        XCTAssertEqual(form.originalName, "Pi")
        send(click(ViewPoint(x: w.state.layout.fieldFrames[viewOnly].x + 250, y: w.state.layout.fieldFrames[viewOnly].y + 20)))
        send(click(ViewPoint(x: w.state.layout.buttonFrames[0].x + 10, y: w.state.layout.buttonFrames[0].y + 10)))
        XCTAssertEqual(SavedConnectionStore(path: path).contents.connections.last?.viewOnly, true)

        // edited by hand meanwhile: the delete applies to the file as it is now
        try (String(contentsOfFile: path, encoding: .utf8) + "\n[By hand]\naddress = hand:3\n").write(toFile: path, atomically: true, encoding: .utf8)
        send(key(SDL_SCANCODE_DELETE), key(SDL_SCANCODE_RETURN))
        XCTAssertEqual(SavedConnectionStore(path: path).contents.connections.map(\.name), ["Office", "Lab", "By hand"])
        var f2 = SavedConnectionStore(path: path).contents
        f2.connections.removeLast()
        try SavedConnectionStore(path: path).save(f2)

        // filter, then quick connect to what was typed
        send(text("la"))
        XCTAssertEqual(w.state.rows.count, 2)
        XCTAssertEqual(w.state.selectedItem?.title, "Lab")
        send(key(SDL_SCANCODE_BACKSPACE), key(SDL_SCANCODE_BACKSPACE), text("127.0.0.1::5999"), key(SDL_SCANCODE_RETURN))
        XCTAssertNotNil(w.running, "a session process started")
        XCTAssertTrue(w.running.map { s in
            let deadline = Date().addingTimeInterval(10)
            while s.process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            return !s.process.isRunning
        } ?? false)
        if let s = w.running { w.sessionEnded(s) }
        XCTAssertEqual(try String(contentsOfFile: args, encoding: .utf8), "view\n127.0.0.1::5999\n")
        XCTAssertEqual(w.state.notice, "The session with 127.0.0.1::5999 ended: no such host")
        XCTAssertFalse(w.quit, "back in the launcher")
        XCTAssertEqual(RecentConnections(path: dir + "/recent").load().map(\.address), ["127.0.0.1::5999"])

        // Esc clears the field, Esc again closes
        send(key(SDL_SCANCODE_ESCAPE))
        XCTAssertFalse(w.quit)
        send(key(SDL_SCANCODE_ESCAPE))
        XCTAssertTrue(w.quit)
    }

    func finger(_ type: SDL_EventType, _ p: ViewPoint, in w: LauncherWindow) -> SDL_Event {
        var ww: Int32 = 0, wh: Int32 = 0
        SDL_GetWindowSize(w.window, &ww, &wh)
        var e = SDL_Event()
        e.type = type.rawValue
        e.tfinger.fingerId = 1
        e.tfinger.x = Float(p.x / Double(ww)); e.tfinger.y = Float(p.y / Double(wh))
        return e
    }

    /// A finger: the touch layout, a tap on a text field brings up the on-screen keyboard, and
    /// its keys type into the field.
    func testTouchTypesWithTheOnScreenKeyboard() throws {
        let store = SavedConnectionStore(path: dir + "/connections")
        let w = LauncherWindow(store: store, recent: RecentConnections(path: dir + "/recent"),
                               thumbnailDirectory: SessionThumbnails.directory(env: ProcessInfo.processInfo.environment), executable: "/bin/false")
        w.discoveryEnabled = false
        try w.open()
        defer { w.teardown() }
        w.draw()
        func tap(_ p: ViewPoint) {
            _ = w.handle(finger(SDL_FINGERDOWN, p, in: w))
            _ = w.handle(finger(SDL_FINGERUP, p, in: w))
            w.draw()
        }
        func centre(_ r: ViewRect) -> ViewPoint { ViewPoint(x: r.x + r.w / 2, y: r.y + r.h / 2) }
        tap(centre(w.state.layout.newButton))
        XCTAssertTrue(w.touchInput)
        XCTAssertTrue(w.keyboardShown, "a text field has focus: the keyboard shows")
        XCTAssertGreaterThanOrEqual(w.state.layout.fieldFrames[0].h, 56, "touch targets")
        guard let kb = w.state.layout.keyboard else { return XCTFail("room kept for the keyboard") }
        XCTAssertTrue(w.state.layout.buttonFrames.allSatisfy { $0.y + $0.h <= kb.y }, "the buttons stay above it")
        for ch in ["p", "i"] {
            guard let k = w.keyboard.keyFrames.first(where: { OnScreenKeyboard.rows[$0.row][$0.index].label == ch }) else { return XCTFail(ch) }
            tap(centre(k.rect))
        }
        guard case .form(let f) = w.state.mode else { return XCTFail("the form") }
        XCTAssertEqual(f.name, "pi")
        // a toggle: the keyboard goes
        let toggle = f.fields.firstIndex { $0.key == "view-only" }!
        tap(centre(w.state.layout.fieldFrames[toggle]))
        XCTAssertFalse(w.keyboardShown)
    }

    func testCorruptFileIsShownAndNotOverwritten() throws {
        let path = dir + "/connections"
        try "[Lab]\naddress = lab:2\nzoom = 3\n".write(toFile: path, atomically: true, encoding: .utf8)
        let w = LauncherWindow(store: SavedConnectionStore(path: path), recent: RecentConnections(path: dir + "/recent"),
                               thumbnailDirectory: SessionThumbnails.directory(env: ProcessInfo.processInfo.environment), executable: "/bin/false")
        w.discoveryEnabled = false
        try w.open()
        defer { w.discovery?.stop(); w.teardown() }
        XCTAssertTrue(w.state.notice?.contains("line 3: unknown key 'zoom'") == true, w.state.notice ?? "")
        _ = w.handle(key(SDL_SCANCODE_N, sym: 0x6e, ctrl: true))
        for c in ["X", "\t", "h:1"] { _ = w.handle(c == "\t" ? key(SDL_SCANCODE_TAB) : text(c)) }
        _ = w.handle(key(SDL_SCANCODE_RETURN))
        guard case .form(let f) = w.state.mode else { return XCTFail("refused") }
        XCTAssertTrue(f.error?.contains("not saved") == true, f.error ?? "")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "[Lab]\naddress = lab:2\nzoom = 3\n")
    }

    func testImportByDroppingAFile() throws {
        let file = dir + "/Build box.tigervnc"
        try "TigerVNC Configuration file Version 1.0\nServerName=build::5902\nViewOnly=1\nMenuKey=F9\n".write(toFile: file, atomically: true, encoding: .utf8)
        let store = SavedConnectionStore(path: dir + "/connections")
        let w = LauncherWindow(store: store, recent: RecentConnections(path: dir + "/recent"),
                               thumbnailDirectory: SessionThumbnails.directory(env: ProcessInfo.processInfo.environment), executable: "/bin/false")
        w.discoveryEnabled = false
        try w.open()
        defer { w.discovery?.stop(); w.teardown() }
        var e = SDL_Event()
        e.type = SDL_DROPFILE.rawValue
        e.drop.file = strdup(file).map { p in
            let s = SDL_malloc(strlen(p) + 1).assumingMemoryBound(to: CChar.self)
            strcpy(s, p); free(p)
            return s
        }
        _ = w.handle(e)
        XCTAssertEqual(store.contents.connections.first?.address, "build::5902")
        XCTAssertEqual(store.contents.connections.first?.viewOnly, true)
        XCTAssertEqual(w.state.notice, "Imported Build box; not carried over: MenuKey=F9")
    }
}
