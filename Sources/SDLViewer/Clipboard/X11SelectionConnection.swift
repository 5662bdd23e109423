import CXCB
import Foundation

/// Our own XCB connection to the viewer's display, for reading selections as SDL 2.26 cannot:
/// INCR transfers (xclip, GTK and Qt send large selections in parts) and XFixes notification
/// of a new owner. Used only on the reader's thread (X11SelectionReader), apart from `init`.
final class X11SelectionConnection {
    let c: OpaquePointer
    let root: xcb_window_t
    /// Holds the XFixes selection input; each read has a window of its own.
    let window: xcb_window_t
    let clipboardAtom: xcb_atom_t
    let utf8, text, incr, compoundText, property: xcb_atom_t
    /// The XFixes SelectionNotify event code, nil when the server has no XFixes.
    private(set) var xfixesEvent: UInt8?
    /// The client part of SDL's window id: windows of SDL's connection share it.
    private let sdlClient: UInt32?
    private let idMask: UInt32
    /// Readable when the reader has work or should stop (its wake pipe).
    let wakeFD: Int32
    /// The reader is stopping: a transfer in progress gives up.
    var stopping: () -> Bool = { false }
    /// New owners the XFixes events told of (latest per selection), for the reader.
    var ownerChanges: [xcb_atom_t: xcb_window_t] = [:]
    static var stallTimeout: Double { LocalSelectionTiming.stallTimeout }
    /// Past the cap an INCR transfer is followed, its parts deleted unread, for this many bytes
    /// more: the owner waits for each deletion (xclip forever, answering no one else meanwhile).
    static let drainLimit = 256 << 20
    /// 32-bit units per GetProperty (256 KiB): large properties are read in bounded pieces.
    static let chunkWords: UInt32 = 64 * 1024

    /// Connects to `display` (nil: $DISPLAY); nil when no connection can be made.
    init?(display: String?, sdlWindow: UInt32?, wakeFD: Int32) {
        var screenNumber: Int32 = 0
        guard let c = xcb_connect(display, &screenNumber), xcb_connection_has_error(c) == 0 else { return nil }
        self.c = c
        let setup = xcb_get_setup(c)
        var it = xcb_setup_roots_iterator(setup)
        for _ in 0..<max(0, screenNumber) where it.rem > 1 { xcb_screen_next(&it) }
        guard let screen = it.data, let setup else { xcb_disconnect(c); return nil }
        root = screen.pointee.root
        idMask = setup.pointee.resource_id_mask
        sdlClient = sdlWindow.map { $0 & ~setup.pointee.resource_id_mask }
        self.wakeFD = wakeFD
        let names = ["CLIPBOARD", "UTF8_STRING", "TEXT", "INCR", "COMPOUND_TEXT", "FARCAST_SELECTION"]
        let cookies = names.map { xcb_intern_atom(c, 0, UInt16($0.utf8.count), $0) }
        let atoms = cookies.map { cookie -> xcb_atom_t in
            guard let r = xcb_intern_atom_reply(c, cookie, nil) else { return 0 }
            defer { free(r) }
            return r.pointee.atom
        }
        guard !atoms.contains(0) else { xcb_disconnect(c); return nil }
        (clipboardAtom, utf8, text, incr, compoundText, property) = (atoms[0], atoms[1], atoms[2], atoms[3], atoms[4], atoms[5])
        window = X11SelectionConnection.makeWindow(c, root)
        xcb_flush(c)
    }

    deinit { xcb_disconnect(c) }

    func atom(_ sel: ClipboardBridge.Selection) -> xcb_atom_t {
        sel == .clipboard ? clipboardAtom : xcb_atom_t(XCB_ATOM_PRIMARY.rawValue)
    }

    /// An unmapped InputOnly window that reports its property changes.
    static func makeWindow(_ c: OpaquePointer, _ root: xcb_window_t) -> xcb_window_t {
        let w = xcb_generate_id(c)
        var mask = XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue
        xcb_create_window(c, 0, w, root, -10, -10, 1, 1, 0, UInt16(XCB_WINDOW_CLASS_INPUT_ONLY.rawValue), 0,
                          XCB_CW_EVENT_MASK.rawValue, &mask)
        return w
    }

    /// XFixes notification of a new owner of each of `selections`; false without XFixes.
    func watch(_ selections: [ClipboardBridge.Selection]) -> Bool {
        guard let ext = xcb_get_extension_data(c, farcast_xcb_xfixes_id()), ext.pointee.present != 0,
              let v = xcb_xfixes_query_version_reply(c, xcb_xfixes_query_version(c, 5, 0), nil)
        else { return false }
        free(v)
        xfixesEvent = ext.pointee.first_event &+ UInt8(XCB_XFIXES_SELECTION_NOTIFY)
        for sel in selections {
            xcb_xfixes_select_selection_input(c, window, atom(sel),
                                              XCB_XFIXES_SELECTION_EVENT_MASK_SET_SELECTION_OWNER.rawValue)
        }
        xcb_flush(c)
        return true
    }

    /// A window of SDL's own connection (its clipboard window sets what the bridge sets).
    func isOurs(_ owner: xcb_window_t) -> Bool {
        guard let sdlClient else { return false }
        return owner & ~idMask == sdlClient
    }

    var broken: Bool { xcb_connection_has_error(c) != 0 }

    enum Wait { case event(UnsafeMutablePointer<xcb_generic_event_t>), timeout, woken }

    /// The next event (the caller frees it), waiting until `deadline` (nil: no limit).
    /// `.woken` when the wake pipe was written (work or stop) or the connection broke.
    func next(until deadline: Date?) -> Wait {
        while true {
            if let e = xcb_poll_for_event(c) { return .event(e) }
            if broken { return .woken }
            var ms: Int32 = -1
            if let deadline {
                let left = deadline.timeIntervalSinceNow
                if left <= 0 { return .timeout }
                ms = Int32(min(left * 1000, 60_000).rounded(.up))
            }
            var fds = [pollfd(fd: xcb_get_file_descriptor(c), events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, ms) > 0 && fds[1].revents != 0 {
                var buf = [UInt8](repeating: 0, count: 64)
                while Glibc.read(wakeFD, &buf, buf.count) > 0 {}
                return .woken
            }
        }
    }

    /// An XFixes event is noted in `ownerChanges`; other events not waited for are dropped.
    func noteIfOwnerChange(_ e: UnsafeMutablePointer<xcb_generic_event_t>) {
        guard let xfixesEvent, e.pointee.response_type & 0x7f == xfixesEvent else { return }
        let n = UnsafeRawPointer(e).load(as: xcb_xfixes_selection_notify_event_t.self)
        ownerChanges[n.selection] = n.owner
    }
}
