import CSDL2
import Foundation
import RFB
import Interaction
import VNCSession

/// The launcher's window (`viewer` with no host): the address book, recent and discovered hosts
/// and quick connect, drawn with the overlays' SDL_ttf text. Each connection runs as its own
/// process (this program's `view` command); the launcher hides meanwhile and comes back when the
/// session ends. Main thread only.
public final class LauncherWindow {
    let store: SavedConnectionStore
    let recent: RecentConnections
    /// This program, started once per connection.
    let executable: String
    /// Where sessions leave their thumbnails (`SessionThumbnails.directory`).
    let thumbnailDirectory: String
    var state = Launcher()
    var window: OpaquePointer?
    var renderer: OpaquePointer?
    var overlay: Overlay?
    var keyboard = OnScreenKeyboard()
    var keyboardShown = false
    /// The last input was a finger: text fields bring up the on-screen keyboard, targets grow.
    var touchInput = false
    var thumbnails: [String: (tex: OpaquePointer, w: Int, h: Int)?] = [:]
    var running: RunningSession?
    var quit = false
    /// Hosts found on the network, from the discovery source (kept by the front end).
    public var discovered: [LauncherItem] = [] { didSet { refreshItems() } }
    /// Look for hosts on the network (off in tests that run in one process with the discovery
    /// test: libdbus reads the system bus address once per process).
    public var discoveryEnabled = true
    /// Start in touch layout (a touchscreen-only machine), e.g. for screenshots and tests.
    public var startInTouchLayout = false
    /// Files to import at start (`viewer launcher --import FILE`).
    public var importPaths: [String] = []
    /// `SDL_RENDER_DRIVER` as `viewer/` read it: "software" asks for SDL's software renderer.
    public var renderDriver: String?
    /// `FARCAST_FONT` as `viewer/` read it: a font tried before the usual ones.
    public var fontPath: String?
    /// Exit status of the last session when the launcher exits because `return-to-launcher = no`.
    public internal(set) var exitStatus: Int32 = 0
    var fingerDown: (id: Int64, x: Double, y: Double, moved: Bool)?
    var discovery: ServiceDiscovery?
    var discoveryWake: WakeSignal?

    public init(store: SavedConnectionStore, recent: RecentConnections, thumbnailDirectory: String,
                executable: String = LauncherWindow.selfExecutable) {
        self.store = store
        self.recent = recent
        self.thumbnailDirectory = thumbnailDirectory
        self.executable = executable
    }

    public static var selfExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Runs until the launcher is closed (Esc, the window's close button); returns the exit status.
    public func run() throws -> Int32 {
        try open()
        defer { close() }
        loop()
        return exitStatus
    }

    /// SDL, the window and its renderer, the items, imports and discovery.
    func open() throws {
        SDL_SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0")
        StaleWakeups.ignore()  // see ViewerWindow.run
        ComposeCache.use()
        guard SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) == 0 else { throw ViewerWindow.sdlError("SDL_Init") }
        let flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_ALLOW_HIGHDPI.rawValue
        let pos = Int32(SDL_WINDOWPOS_CENTERED_MASK)
        guard let w = SDL_CreateWindow("Farcast", pos, pos, 1024, 720, flags) else {
            SDL_Quit()
            throw ViewerWindow.sdlError("SDL_CreateWindow")
        }
        window = w
        let software = renderDriver == "software"
        guard let r = SDL_CreateRenderer(w, -1, software ? SDL_RENDERER_SOFTWARE.rawValue : SDL_RENDERER_ACCELERATED.rawValue)
                ?? SDL_CreateRenderer(w, -1, SDL_RENDERER_SOFTWARE.rawValue) else {
            close()
            throw ViewerWindow.sdlError("SDL_CreateRenderer")
        }
        renderer = r
        overlay = Overlay(renderer: r, fontCandidates: (fontPath.map { [$0] } ?? []) + TextRenderer.fontCandidates)
        touchInput = startInTouchLayout
        SDL_StartTextInput()
        refreshItems()
        if let p = store.problem { state.notice = p }
        for path in importPaths { importFile(path) }
        if discoveryEnabled { startDiscovery() }
    }

    func close() {
        discovery?.stop()
        discovery = nil
        teardown()
        SDL_Quit()
    }

    func teardown() {
        for case let t? in thumbnails.values { SDL_DestroyTexture(t.tex) }
        thumbnails.removeAll()
        overlay = nil
        if let r = renderer { SDL_DestroyRenderer(r) }
        if let w = window { SDL_DestroyWindow(w) }
        renderer = nil; window = nil
    }

    func loop() {
        var e = SDL_Event()
        var dirty = true
        while !quit {
            if dirty { draw(); dirty = false }
            // a session running: look at it a few times a second; otherwise sleep until input
            let got = running != nil ? SDL_WaitEventTimeout(&e, 200) != 0 : SDL_WaitEvent(&e) != 0
            if let s = running, !s.process.isRunning { sessionEnded(s); dirty = true }
            if got {
                repeat { dirty = handle(e) || dirty } while SDL_PollEvent(&e) != 0
            }
        }
    }

    /// Hosts on the network through Avahi; without a daemon the list simply has none.
    func startDiscovery() {
        let wake = WakeSignal(eventType: SDL_RegisterEvents(1))
        discoveryWake = wake
        let d = ServiceDiscovery { wake.signal() }
        do { try d.start(); discovery = d } catch {
            FileHandle.standardError.write(Data("viewer: hosts on the network are not listed (\(error))\n".utf8))
        }
    }

    /// Main thread, on the discovery's wake-up event.
    func discoveryChanged() {
        discoveryWake?.acknowledge()
        discovered = (discovery?.services ?? []).map { s in
            let what = s.type == ServiceDiscovery.rfbType ? "VNC" : "workstation (VNC port 5900 assumed)"
            return LauncherItem(kind: .discovered, title: s.displayName, address: s.connectAddress, detail: "\(s.hostName) · \(what)")
        }
    }

    /// The list's items from the store, the recent file and discovery.
    func refreshItems() {
        var items: [LauncherItem] = []
        var values: [String: [String: String]] = [:]
        let saved = store.contents.connections
        for c in saved {
            items.append(LauncherItem(kind: .saved, title: c.name, address: c.address,
                                      detail: c.lastConnected.map { "last connected \(LauncherWindow.ago($0))" } ?? "never connected",
                                      colour: c.colour))
            values[c.name] = c.values
        }
        let savedAddresses = Set(saved.map(\.address))
        for r in recent.load() where !savedAddresses.contains(r.address) {
            items.append(LauncherItem(kind: .recent, title: r.address, address: r.address, detail: "connected \(LauncherWindow.ago(r.date))"))
        }
        items += discovered
        state.editValues = values
        state.setItems(items)
    }

    static func ago(_ d: Date, now: Date = Date()) -> String {
        let s = max(0, Int(now.timeIntervalSince(d)))
        if s < 60 { return "just now" }
        if s < 3600 { return "\(s / 60) min ago" }
        if s < 86_400 { return "\(s / 3600) h ago" }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: d)
    }

    /// Carries out what the state machine asked.
    func perform(_ cmd: LauncherAction?) {
        guard let cmd else { return }
        switch cmd {
        case .connect(let it): connect(it)
        case .quickConnect(let text): quickConnect(text)
        case .save(let f): save(f)
        case .delete(let name):
            var c = freshContents()
            c.connections.removeAll { $0.name == name }
            do { try store.save(c); state.notice = "Deleted \(name)" } catch { state.notice = "\(error)" }
            refreshItems()
        case .quit: quit = true
        case .textFocus(let on): keyboardShown = on && touchInput
        }
    }

    /// The file as it is now: a change is made to what is on disk (edited by hand meanwhile,
    /// or by another launcher), never to what was read at start.
    func freshContents() -> SavedConnectionsFile {
        store.reload()
        if let p = store.problem { state.notice = p }
        return store.contents
    }

    func save(_ f: LauncherForm) {
        let name = f.name.trimmingCharacters(in: .whitespaces)
        var c = freshContents()
        let old = f.originalName.flatMap { n in c.connections.firstIndex { $0.name == n } }
        var conn = old.map { c.connections[$0] } ?? SavedConnection(name: name, address: "localhost")
        conn.name = name
        do {
            try SavedConnection.checkName(name)
            let clash = c.connections.enumerated().contains { $0.offset != old && $0.element.name.lowercased() == name.lowercased() }
            guard !clash else { throw ConfigError("there is already a connection named \(name)") }
            for (k, v) in f.values.sorted(by: { $0.key < $1.key }) { try conn.set(k, v) }
            if let old { c.connections[old] = conn } else { c.connections.append(conn) }
            try store.save(c)
        } catch {
            state.formRefused("\(error)")
            return
        }
        keyboardShown = false
        refreshItems()
        state.saved(name: name)
        state.notice = "Saved \(name)"
    }

    /// A .tigervnc or .remmina file dropped on the window (or given with --import) is saved.
    func importFile(_ path: String) {
        do {
            let r = try ConnectionImport.load(path: path)
            var c = freshContents()
            var conn = r.connection
            let base = conn.name
            var n = 2
            while c.connections.contains(where: { $0.name.lowercased() == conn.name.lowercased() }) { conn.name = "\(base) \(n)"; n += 1 }
            c.connections.append(conn)
            try store.save(c)
            refreshItems()
            state.saved(name: conn.name)
            state.notice = "Imported \(conn.name)" + (r.refused.isEmpty ? "" : "; refused: " + r.refused.joined(separator: "; "))
                + (r.notCarried.isEmpty ? "" : "; not carried over: " + r.notCarried.joined(separator: ", "))
        } catch {
            state.notice = "Import of \(ServerText.printable((path as NSString).lastPathComponent, limit: 80)) failed: \(error)"
        }
    }
}
