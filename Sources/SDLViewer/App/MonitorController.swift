import Foundation
import Interaction
import RFB
import VNCSession

/// Which of the server's screens the window shows: the choice (by screen id), where it comes
/// from at the start (`--monitor N`, else the last choice for this host), what a layout change
/// does to it, and remembering it. Plain logic over the layouts the session reports (no SDL),
/// owned by the window. Main thread only.
final class MonitorController {
    private(set) var layout: ScreenLayout?
    private(set) var choice: MonitorChoice = .all
    /// `--monitor N` (1-based display number), applied to the first layout.
    private(set) var requestedNumber: Int?
    let memory: MonitorMemory?
    /// The key the memory files the choice under (the connection's description).
    let host: String

    init(requestedNumber: Int? = nil, memory: MonitorMemory? = nil, host: String) {
        self.requestedNumber = requestedNumber
        self.memory = memory
        self.host = host
    }

    /// More than one screen: the picker and the cycling keys have something to do.
    var hasSeveralScreens: Bool { (layout?.screens.count ?? 0) > 1 }

    /// The framebuffer part to frame the view on; nil shows everything.
    var region: Rect? {
        guard let layout, case .screen = choice, hasSeveralScreens else { return nil }
        return framebufferRegion(for: choice, in: layout)
    }

    /// A layout from the server (ExtendedDesktopSize). Returns a notice for the user, if any:
    /// a `--monitor` the server does not have, or a chosen screen that went away.
    func layoutChanged(_ new: ScreenLayout) -> String? {
        let previous = layout
        layout = new
        guard previous != nil else {
            if let n = requestedNumber {
                requestedNumber = nil
                do {
                    // asked for on the command line: the last choice for this host from now on
                    choose(try ScreenPicker.choice(forMonitor: n, in: new))
                    return nil
                } catch {
                    choice = .all
                    return "\(error); showing all screens"
                }
            }
            if let saved = memory?.choice(for: host) {
                // a remembered screen that is gone is not worth a notice: it was not asked for now
                choice = ScreenPicker.resolve(choice: MonitorController.choice(saved), in: new).choice
            }
            return nil
        }
        let r = ScreenPicker.resolve(choice: choice, in: new, previous: previous)
        choice = r.choice
        return r.notice
    }

    /// `--monitor N` with a server that never described its screens.
    func noLayoutNotice() -> String? {
        guard let n = requestedNumber, layout == nil else { return nil }
        requestedNumber = nil
        return "The server does not describe its screens (no ExtendedDesktopSize): --monitor \(n) ignored, showing the whole desktop"
    }

    /// The user chose (picker, keys, gesture): shown and remembered for this host.
    func choose(_ c: MonitorChoice) {
        choice = c
        do {
            try memory?.remember(MonitorController.saved(c), for: host)
        } catch {
            // the view works without the memory; nothing to tell the user beyond the log
            FileHandle.standardError.write(Data("viewer: cannot remember the screen choice: \(error)\n".utf8))
        }
    }

    /// The next or previous screen in display order (all screens counts as one stop).
    func cycle(forward: Bool) -> MonitorChoice? {
        guard let layout, hasSeveralScreens else { return nil }
        let p = ScreenPicker(layout: layout, current: choice)
        return forward ? p.next(after: choice) : p.previous(before: choice)
    }

    /// A label for notices: "Screen 2 of 3" or "All screens".
    func label(_ c: MonitorChoice) -> String {
        guard let layout, case .screen = c else { return "All screens" }
        let p = ScreenPicker(layout: layout)
        return "\(p.label(for: c)) of \(p.screens.count)"
    }

    static func choice(_ s: MonitorMemory.Choice) -> MonitorChoice {
        switch s {
        case .all: return .all
        case .screen(let id): return .screen(id: id)
        }
    }

    static func saved(_ c: MonitorChoice) -> MonitorMemory.Choice {
        switch c {
        case .all: return .all
        case .screen(let id): return .screen(id: id)
        }
    }
}
