import CWaylandSelection
import Foundation

/// The Wayland clipboard and primary selection through our own data devices on SDL's display
/// (CWaylandSelection), read and served on threads of their own: SDL 2.26 reads a selection on
/// the main thread with no cap (an owner that writes forever hangs the window) and stops at the
/// first pause of 14 ms (a slow owner's text arrives cut), and writes ours from the main thread
/// the same way.
///
/// Wayland hands selections to the client with keyboard focus only: a new selection arrives here
/// (`offered`, read at once when watching) when the window has focus or gains it, and setting one
/// needs the serial of an input event the window received.
///
/// Thread use: everything on the main thread (the C callbacks run inside SDL's event pump),
/// except the pipe transfers, each on a thread of its own that only touches `lock`'s state.
final class WaylandSelections: LocalSelections, @unchecked Sendable {
    typealias Selection = ClipboardBridge.Selection
    let cap: Int
    /// Whether the compositor offers a primary selection (zwp_primary_selection_v1).
    private(set) var hasPrimary = false
    private let selections: [Selection]
    /// Read a new selection as soon as it is offered (the bridge sends).
    private let watching: Bool
    private let notify: @Sendable () -> Void
    private let log: @Sendable (String) -> Void
    private let stall = LocalSelectionTiming.stallTimeout
    private let lock = NSLock()
    // guarded by `lock`
    private var results: [(Selection, Int, SelectionRead)] = []
    private var stopRequested = false
    private let transfers = DispatchGroup()
    // main thread
    private var handle: OpaquePointer?
    /// Offers seen per selection; a read carries the number of the offer it reads.
    private var offers: [Selection: Int] = [:]
    /// The offer last read (or being read), per selection: asking again reads nothing new.
    private var readOffer: [Selection: Int] = [:]
    /// The texts we set, served to whoever asks.
    private var texts: [Selection: [UInt8]] = [:]

    /// Main thread, with SDL's `wl_display`. nil when the compositor has no seat or data device.
    init?(display: OpaquePointer, selections: [Selection], cap: Int, watching: Bool,
          notify: @escaping @Sendable () -> Void, log: @escaping @Sendable (String) -> Void) {
        self.selections = selections
        self.cap = max(0, cap)
        self.watching = watching
        self.notify = notify
        self.log = log
        var cb = fc_wlsel_callbacks()
        cb.changed = { ctx, sel, hasText in
            guard let ctx else { return }
            Unmanaged<WaylandSelections>.fromOpaque(ctx).takeUnretainedValue().offered(WaylandSelections.selection(sel), hasText: hasText != 0)
        }
        cb.send = { ctx, sel, fd in
            guard let ctx else { close(fd); return }
            Unmanaged<WaylandSelections>.fromOpaque(ctx).takeUnretainedValue().serve(WaylandSelections.selection(sel), fd: fd)
        }
        // `self` outlives the handle: `stop` (or deinit) destroys it first
        cb.context = Unmanaged.passUnretained(self).toOpaque()
        // the set-up's round trips may already bring the current selections: `offered` runs
        // before `handle` is kept, so it must not need it (it only counts them)
        guard let h = fc_wlsel_create(display, cb) else { return nil }
        handle = h
        hasPrimary = fc_wlsel_has_primary(h) != 0
    }

    deinit {
        if let handle { fc_wlsel_destroy(handle) }
    }

    private static func selection(_ c: Int32) -> Selection { c == Int32(FC_WLSEL_PRIMARY) ? .primary : .clipboard }
    private static func code(_ sel: Selection) -> Int32 { Int32(sel == .primary ? FC_WLSEL_PRIMARY : FC_WLSEL_CLIPBOARD) }

    /// A new selection (or none): what was read before is out of date.
    private func offered(_ sel: Selection, hasText: Bool) {
        offers[sel, default: 0] += 1
        if watching && hasText && handle != nil && selections.contains(sel) { read(sel) }
    }

    func request(_ sels: [Selection]) {
        for sel in sels where selections.contains(sel) && readOffer[sel] != offers[sel, default: 0] { read(sel) }
    }

    private func read(_ sel: Selection) {
        guard let handle else { return }
        let offer = offers[sel, default: 0]
        readOffer[sel] = offer
        if fc_wlsel_is_ours(handle, Self.code(sel)) != 0 { return }
        var mime: UnsafePointer<CChar>?
        let fd = fc_wlsel_receive(handle, Self.code(sel), &mime)
        guard fd >= 0 else { return }
        log("clipboard: reading the Wayland \(sel) selection as \(mime.map { String(cString: $0) } ?? "?")")
        transfers.enter()
        let t = Thread { [self, cap, stall] in
            let r = Self.readPipe(fd, cap: cap, stall: stall, stopping: { [self] in isStopping })
            lock.withLock { results.append((sel, offer, r)) }
            notify()
            transfers.leave()
        }
        t.name = "farcast-selection"
        t.start()
    }

    func takeResults() -> [(Selection, SelectionRead)] {
        let got = lock.withLock { defer { results.removeAll() }; return results }
        var out: [(Selection, SelectionRead)] = []
        for (sel, offer, r) in got {
            // a newer offer came meanwhile: its own read supersedes this one
            guard offer == offers[sel, default: 0] else { continue }
            if case .failed = r { readOffer[sel] = nil }  // asking again tries again
            out.append((sel, r))
        }
        return out
    }

    /// Offers `text` as the local `sel`: nil when the request went out, else why not.
    func set(_ sel: Selection, _ text: String) -> String? {
        guard let handle else { return "the Wayland selections are closed" }
        if sel == .primary && !hasPrimary { return "the compositor has no primary selection" }
        texts[sel] = Array(text.utf8)
        var hadSerial: Int32 = 0
        guard fc_wlsel_set(handle, Self.code(sel), &hadSerial) == 0 else { return "the Wayland data source was not made" }
        if hadSerial == 0 {
            log("clipboard: no input event reached the window yet; the compositor may refuse the \(sel) selection until one does")
        }
        return nil
    }

    /// Another client reads our text: written on a thread of its own, never blocking the window.
    private func serve(_ sel: Selection, fd: Int32) {
        guard let text = texts[sel] else { close(fd); return }
        transfers.enter()
        let stallMs = Int32(stall * 1000)
        let t = Thread { [self] in
            let n = text.withUnsafeBytes { fc_wlsel_write_fd(fd, $0.baseAddress, $0.count, stallMs) }
            close(fd)
            if n < text.count { log("clipboard: a reader of the \(sel) selection took \(n) of \(text.count) bytes") }
            transfers.leave()
        }
        t.name = "farcast-selection"
        t.start()
    }

    private var isStopping: Bool { lock.withLock { stopRequested } }

    @discardableResult
    func stop(timeout: Double = 3) -> Bool {
        lock.withLock { stopRequested = true }
        if let handle { fc_wlsel_destroy(handle) }
        handle = nil
        return transfers.wait(timeout: .now() + timeout) == .success
    }

    /// One selection's text from the owner's pipe: at most `cap` bytes (more is refused, the
    /// pipe closed on the owner), given up after `stall` seconds without a byte. Closes `fd`.
    static func readPipe(_ fd: Int32, cap: Int, stall: Double, stopping: () -> Bool) -> SelectionRead {
        defer { close(fd) }
        var body: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var last = DispatchTime.now()
        while true {
            if stopping() { return .failed("stopped") }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, 100)
            if r < 0 && errno != EINTR { return .failed("poll: errno \(errno)") }
            if r <= 0 {
                if Double(DispatchTime.now().uptimeNanoseconds - last.uptimeNanoseconds) / 1e9 > stall {
                    return .failed("the owner sent nothing for \(Int(stall)) s")
                }
                continue
            }
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .failed("read: errno \(errno)")
            }
            if n == 0 { break }
            if body.count + n > cap { return .tooLarge(bytes: body.count + n) }
            body.append(contentsOf: chunk[0..<n])
            last = DispatchTime.now()
        }
        // some owners end the text with a NUL, as a C string
        if body.last == 0 { body.removeLast() }
        return body.isEmpty ? .empty : .text(String(decoding: body, as: UTF8.self))
    }
}
