import CXCB
import Foundation

/// Reading one selection (ICCCM): ConvertSelection into a property of a window made for this
/// read, then the property in bounded pieces, or the INCR transfer it announces.
extension X11SelectionConnection {
    /// `sel` as text of at most `cap` bytes. Blocks this thread while the owner keeps sending;
    /// each step has `stallTimeout`, so a broken owner costs seconds, never a hang.
    func read(_ sel: ClipboardBridge.Selection, cap: Int) -> SelectionRead {
        let selAtom = atom(sel)
        guard let r = xcb_get_selection_owner_reply(c, xcb_get_selection_owner(c, selAtom), nil)
        else { return .failed("the X connection broke") }
        let owner = r.pointee.owner
        free(r)
        if owner == 0 { return .empty }
        if isOurs(owner) { return .ours }
        let w = X11SelectionConnection.makeWindow(c, root)
        // a transfer given up leaves nothing behind: late events name a window that is gone
        defer { xcb_destroy_window(c, w); xcb_flush(c) }
        // UTF8_STRING first; an owner that refuses it may still have STRING (Latin-1) or TEXT
        for target in [utf8, xcb_atom_t(XCB_ATOM_STRING.rawValue), text] {
            xcb_convert_selection(c, w, selAtom, target, property, xcb_timestamp_t(XCB_CURRENT_TIME))
            xcb_flush(c)
            switch awaitNotify(w, selAtom) {
            case .failed(let why): return .failed(why)
            case .refused: continue
            case .property: return readReply(w, cap: cap)
            }
        }
        return .empty
    }

    private enum Answer { case property, refused, failed(String) }

    /// The owner's SelectionNotify for our request on `w`.
    private func awaitNotify(_ w: xcb_window_t, _ sel: xcb_atom_t) -> Answer {
        let deadline = Date().addingTimeInterval(Self.stallTimeout)
        while true {
            switch next(until: deadline) {
            case .timeout:
                return .failed("the owner did not answer within \(Int(Self.stallTimeout)) s")
            case .woken:
                if stopping() || broken { return .failed("stopped") }
            case .event(let e):
                defer { free(e) }
                noteIfOwnerChange(e)
                guard Int32(e.pointee.response_type & 0x7f) == XCB_SELECTION_NOTIFY else { continue }
                let n = UnsafeRawPointer(e).load(as: xcb_selection_notify_event_t.self)
                guard n.requestor == w, n.selection == sel else { continue }
                return n.property == 0 ? .refused : .property
            }
        }
    }

    /// The answer in the property: text, or an INCR announcement (its value: a lower bound of
    /// the size) that starts the transfer once deleted.
    private func readReply(_ w: xcb_window_t, cap: Int) -> SelectionRead {
        switch readProperty(w, budget: cap) {
        case .missing: return .failed("the owner announced a property it did not set")
        case .tooLarge(let n): return .tooLarge(bytes: n)
        case .failed(let why): return .failed(why)
        case .value(let type, _, let bytes) where type == incr:
            // deleting the announcement starts the transfer; over the cap it is still followed
            // (see readIncr), so the value, a lower bound of the size, only sizes the buffer
            let lower = bytes.count >= 4 ? Int(bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }) : 0
            xcb_delete_property(c, w, property)
            xcb_flush(c)
            return readIncr(w, cap: cap, expected: lower)
        case .value(let type, let format, let bytes):
            return decode(bytes, type: type, format: format)
        }
    }

    /// INCR: each part comes as a new value of the property, read and deleted (the owner waits
    /// for that to send the next), until a part of length zero. Past the cap the parts are only
    /// measured and deleted, up to `drainLimit` more: an owner left waiting may serve no one
    /// else (xclip waits forever), while nothing more is kept.
    private func readIncr(_ w: xcb_window_t, cap: Int, expected: Int) -> SelectionRead {
        var data: [UInt8] = []
        data.reserveCapacity(min(expected, cap))
        var partType: (xcb_atom_t, UInt8)?
        /// Bytes sent once over the cap (nil while within it).
        var over: Int?
        var deadline = Date().addingTimeInterval(Self.stallTimeout)
        while true {
            switch next(until: deadline) {
            case .timeout:
                return .failed("the owner stopped sending its parts (INCR) after \(over ?? data.count) bytes")
            case .woken:
                if stopping() || broken { return .failed("stopped") }
            case .event(let e):
                defer { free(e) }
                noteIfOwnerChange(e)
                guard Int32(e.pointee.response_type & 0x7f) == XCB_PROPERTY_NOTIFY else { continue }
                let n = UnsafeRawPointer(e).load(as: xcb_property_notify_event_t.self)
                guard n.window == w, n.atom == property, n.state == UInt8(XCB_PROPERTY_NEW_VALUE.rawValue) else { continue }
                if let sent = over {
                    guard let size = propertySize(w) else { continue }
                    xcb_delete_property(c, w, property)
                    xcb_flush(c)
                    if size == 0 || sent + size - cap > Self.drainLimit { return .tooLarge(bytes: sent + size) }
                    over = sent + size
                    deadline = Date().addingTimeInterval(Self.stallTimeout)
                    continue
                }
                switch readProperty(w, budget: cap - data.count) {
                case .missing: continue  // a late event for a part already read
                case .failed(let why): return .failed(why)
                case .tooLarge(let n):
                    over = data.count + n
                    data = []
                    xcb_delete_property(c, w, property)
                    xcb_flush(c)
                    deadline = Date().addingTimeInterval(Self.stallTimeout)
                case .value(let type, let format, let part):
                    if part.isEmpty {
                        let (t, f) = partType ?? (type, format)
                        return decode(data, type: t, format: f)
                    }
                    if partType == nil { partType = (type, format) }
                    data += part
                    deadline = Date().addingTimeInterval(Self.stallTimeout)
                }
            }
        }
    }

    /// The size in bytes of the property on `w` without reading it (nil: there is none).
    private func propertySize(_ w: xcb_window_t) -> Int? {
        let cookie = xcb_get_property(c, 0, w, property, xcb_atom_t(XCB_GET_PROPERTY_TYPE_ANY.rawValue), 0, 0)
        guard let r = xcb_get_property_reply(c, cookie, nil) else { return nil }
        defer { free(r) }
        return r.pointee.type == 0 ? nil : Int(r.pointee.bytes_after)
    }

    private enum Property {
        case missing, tooLarge(Int), failed(String)
        case value(type: xcb_atom_t, format: UInt8, bytes: [UInt8])
    }

    /// The property on `w` in pieces of `chunkWords`, refused over `budget` bytes before any is
    /// kept (and then not deleted). Deleted once read, except an INCR announcement (see
    /// `readReply`).
    private func readProperty(_ w: xcb_window_t, budget: Int) -> Property {
        var bytes: [UInt8] = []
        var offset: UInt32 = 0  // in 32-bit units, as GetProperty counts
        var type: xcb_atom_t = 0, format: UInt8 = 0
        while true {
            // the first piece is read without deleting: its reply says the size and the type;
            // later ones delete, which the server does only with the last (bytes_after 0)
            let cookie = xcb_get_property(c, offset == 0 ? 0 : 1, w, property,
                                          xcb_atom_t(XCB_GET_PROPERTY_TYPE_ANY.rawValue), offset, Self.chunkWords)
            guard let r = xcb_get_property_reply(c, cookie, nil) else { return .failed("the X connection broke") }
            defer { free(r) }
            let n = Int(xcb_get_property_value_length(r)), after = Int(r.pointee.bytes_after)
            if offset == 0 {
                (type, format) = (r.pointee.type, r.pointee.format)
                if type == 0 { return .missing }
                if n + after > budget && type != incr { return .tooLarge(n + after) }
                bytes.reserveCapacity(n + after)
            }
            if n > 0, let v = xcb_get_property_value(r) {
                bytes.append(contentsOf: UnsafeRawBufferPointer(start: v, count: n))
            }
            if after == 0 {
                if offset == 0 && type != incr {
                    xcb_delete_property(c, w, property)
                    xcb_flush(c)
                }
                return .value(type: type, format: format, bytes: bytes)
            }
            guard type != incr, n > 0, n % 4 == 0, bytes.count <= budget, r.pointee.type == type
            else { return .failed("the selection's property changed while it was read") }
            offset += UInt32(n / 4)
        }
    }

    /// Text from a reply of `type`: UTF-8, or Latin-1 for STRING and for COMPOUND_TEXT without
    /// escape sequences (then the same bytes). Up to the first NUL, as SDL reads a selection.
    func decode(_ bytes: [UInt8], type: xcb_atom_t, format: UInt8) -> SelectionRead {
        let body = bytes.prefix { $0 != 0 }
        if body.isEmpty { return .empty }
        guard format == 8 else { return .failed("a selection of format \(format) is not text") }
        if type == utf8 { return .text(String(decoding: body, as: UTF8.self)) }
        if type == xcb_atom_t(XCB_ATOM_STRING.rawValue) || (type == compoundText && !body.contains(0x1b)) {
            var s = String.UnicodeScalarView()
            s.append(contentsOf: body.map { Unicode.Scalar($0) })
            return .text(String(s))
        }
        return .failed("text of type \(atomName(type)) is not read")
    }

    func atomName(_ a: xcb_atom_t) -> String {
        guard let r = xcb_get_atom_name_reply(c, xcb_get_atom_name(c, a), nil) else { return "\(a)" }
        defer { free(r) }
        let n = Int(xcb_get_atom_name_name_length(r))
        guard n > 0, let p = xcb_get_atom_name_name(r) else { return "\(a)" }
        return String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self)
    }
}
