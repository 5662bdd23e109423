import RFB

/// Where the last screen choice per host is kept (the viewer's file in VNCSession's
/// `MonitorMemory`; nothing in tests). Called on the main thread.
public protocol MonitorChoiceMemory: AnyObject {
    func rememberedChoice(for host: String) -> MonitorChoice?
    func rememberChoice(_ c: MonitorChoice, for host: String) throws
}

/// Which of the server's screens the window shows: where the choice comes from at the start
/// (`--monitor N`, else the last choice for this host), what a layout change does to it, and
/// remembering it. The layout and the choice themselves live in `ViewerUI` (their one owner,
/// which the picker and the menu read too); this class decides changes to them. Plain logic
/// (no SDL, no I/O: the memory is given), owned by the window. Main thread only.
public final class MonitorController {
    /// `--monitor N` (1-based display number), applied to the first layout.
    private(set) var requestedNumber: Int?
    let memory: MonitorChoiceMemory?
    /// The key the memory files the choice under (the connection's description).
    let host: String
    /// Told when a choice cannot be remembered (the view works without the memory; the window
    /// logs it).
    let warn: (String) -> Void

    public init(requestedNumber: Int? = nil, memory: MonitorChoiceMemory? = nil, host: String,
                warn: @escaping (String) -> Void = { _ in }) {
        self.requestedNumber = requestedNumber
        self.memory = memory
        self.host = host
        self.warn = warn
    }

    /// The framebuffer part to frame the view on; nil shows everything.
    public func region(_ ui: ViewerUI) -> Rect? {
        guard let layout = ui.screenLayout, case .screen = ui.monitorChoice, ui.severalScreens else { return nil }
        return framebufferRegion(for: ui.monitorChoice, in: layout)
    }

    /// A layout from the server (ExtendedDesktopSize), into `ui`. Returns a notice for the
    /// user, if any: a `--monitor` the server does not have, or a chosen screen that went away.
    public func layoutChanged(_ new: ScreenLayout, in ui: inout ViewerUI) -> String? {
        let previous = ui.screenLayout
        ui.screenLayout = new
        guard previous != nil else {
            if let n = requestedNumber {
                requestedNumber = nil
                do {
                    // asked for on the command line: the last choice for this host from now on
                    choose(try ScreenPicker.choice(forMonitor: n, in: new), in: &ui)
                    return nil
                } catch {
                    ui.monitorChoice = .all
                    return "\(error); showing all screens"
                }
            }
            if let saved = memory?.rememberedChoice(for: host) {
                // a remembered screen that is gone is not worth a notice: it was not asked for now
                ui.monitorChoice = ScreenPicker.resolve(choice: saved, in: new).choice
            }
            return nil
        }
        let r = ScreenPicker.resolve(choice: ui.monitorChoice, in: new, previous: previous)
        ui.monitorChoice = r.choice
        return r.notice
    }

    /// `--monitor N` with a server that never described its screens.
    public func noLayoutNotice(_ ui: ViewerUI) -> String? {
        guard let n = requestedNumber, ui.screenLayout == nil else { return nil }
        requestedNumber = nil
        return "The server does not describe its screens (no ExtendedDesktopSize): --monitor \(n) ignored, showing the whole desktop"
    }

    /// The user chose (picker, keys, gesture): shown and remembered for this host.
    public func choose(_ c: MonitorChoice, in ui: inout ViewerUI) {
        ui.monitorChoice = c
        do {
            try memory?.rememberChoice(c, for: host)
        } catch {
            // nothing to tell the user beyond the log
            warn("cannot remember the screen choice: \(error)")
        }
    }

    /// The next or previous screen in display order (all screens counts as one stop).
    public func cycle(forward: Bool, _ ui: ViewerUI) -> MonitorChoice? {
        guard let layout = ui.screenLayout, ui.severalScreens else { return nil }
        let c = ui.monitorChoice
        let p = ScreenPicker(layout: layout, current: c)
        return forward ? p.next(after: c) : p.previous(before: c)
    }

    /// A label for notices: "Screen 2 of 3" or "All screens".
    public func label(_ c: MonitorChoice, _ ui: ViewerUI) -> String {
        guard let layout = ui.screenLayout, case .screen = c else { return "All screens" }
        let p = ScreenPicker(layout: layout)
        return "\(p.label(for: c)) of \(p.screens.count)"
    }
}
