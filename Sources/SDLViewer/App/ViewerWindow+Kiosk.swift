import CSDL2
import Foundation
import Interaction
import VNCSession

/// What a kiosk (`farcast kiosk`) changes in the window: the lock on its own controls, the PIN
/// pad's count kept in the state directory, systemd's watchdog, the console held, and the local
/// cursor hidden until a real mouse moves.
public struct KioskOptions {
    public var menuLock: MenuLock = .open
    /// Screenshots and recording (the menu's entries and their shortcuts); a kiosk offers them
    /// only when kiosk.conf says so.
    public var screenshots = true
    public var recording = true
    /// Where wrong PINs are counted across restarts (the kiosk's state directory); nil: in
    /// memory only.
    public var pinFailures: PinFailureFile?
    /// Keep the virtual terminal on KMSDRM (no VT switch away from the kiosk while it runs).
    public var holdsConsole = false
    /// READY=1 once the window is up, WATCHDOG=1 from the event loop.
    public var notifier: SystemdNotifier?
    /// A touch panel has no pointer to show; a mouse plugged in brings it back.
    public var hideCursor = false
    public init() {}
}

/// What a kiosk's window holds while it runs, beside its options.
struct KioskState {
    /// The VT held (`holdsConsole` on KMSDRM), released at teardown.
    var console: ConsoleHold?
    /// A real mouse moved: the cursor shows from then on.
    var mouseSeen = false
}

extension ViewerWindow {
    /// At start, the window made: the console held, the PIN count read back.
    func startKiosk(_ router: InputController) {
        if kiosk.holdsConsole && WindowRenderer.ownsDisplay {
            let hold = ConsoleHold()
            if hold.hold() { kioskState.console = hold } else { kioskSay("cannot hold the console's VT (\(String(cString: strerror(errno)))): a VT switch can leave the kiosk") }
        }
        guard case .pin = kiosk.menuLock, let file = kiosk.pinFailures else { return }
        do {
            if let r = try file.load() { router.pin.lockout = PinLockout(failures: r.failures, lockedUntil: r.lockedUntil) }
        } catch {
            // a count that cannot be read is no fresh count: the pad starts locked
            let now = router.pin.clock()
            var l = PinLockout(failures: PinLockout.freeTries, lockedUntil: 0)
            l.recordFailure(now: now)
            router.pin.lockout = l
            kioskSay("\(error): the PIN pad starts locked")
        }
    }

    /// The PIN pad's events: said in the journal, the count saved after each PIN checked.
    func kioskPin(_ e: PinEvent) {
        switch e {
        case .openedLocked(let s, let n):
            kioskSay("the PIN pad is locked for \(Int(s.rounded(.up))) s more (\(n) wrong PINs in a row)")
            return
        case .rejected(let n, let lock):
            kioskSay("a wrong PIN (\(n) in a row)" + (lock > 0 ? ": the PIN pad is locked for \(Int(lock)) s" : ""))
        case .accepted:
            kioskSay("the menu was opened with the PIN")
        }
        guard let file = kiosk.pinFailures else { return }
        let l = router.pin.lockout
        do {
            try file.save(PinFailureFile.Record(failures: l.failures, lockedUntil: l.lockedUntil))
        } catch {
            kioskSay("cannot keep the count of wrong PINs: \(error)")
        }
    }

    /// A line for the journal (stderr under systemd), whatever -v says.
    func kioskSay(_ line: String) {
        FileHandle.standardError.write(Data("viewer: kiosk: \(line)\n".utf8))
    }

    /// Every event: a real mouse moving shows the cursor again.
    func kioskSaw(_ e: SDL_Event) {
        guard kiosk.hideCursor, !kioskState.mouseSeen, e.type == SDL_MOUSEMOTION.rawValue,
              e.motion.which != SDLInput.touchMouseID else { return }
        kioskState.mouseSeen = true
        applyCursor()
    }

    var kioskHidesCursor: Bool { kiosk.hideCursor && !kioskState.mouseSeen }

    /// The longest the loop may sleep: half the watchdog interval when there is one.
    var longestWaitMs: Int32? {
        kiosk.notifier?.pingInterval.map { Int32(max(100, $0 * 500)) }
    }
}
