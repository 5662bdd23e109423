import CZlib

/// The Extended Clipboard pseudo-encoding (0xC0A1E5CE, rfbproto "Extended Clipboard
/// Pseudo-encoding"): ServerCutText/ClientCutText with a negative length carry a u32 of flags
/// (formats in bits 0-15, one action in bits 24-31) and the action's payload:
///
/// - caps:    a u32 size limit for each format bit set, lowest bit first
/// - request, peek, notify: nothing
/// - provide: one zlib stream holding, for each format bit set, a u32 length and the data
///
/// Text is UTF-8 with CRLF line endings and a terminating NUL.
public enum ExtendedClipboard {
    public static let encoding = Int32(bitPattern: 0xC0A1_E5CE)

    public struct Formats: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let text = Formats(rawValue: 1 << 0)
        public static let rtf = Formats(rawValue: 1 << 1)
        public static let html = Formats(rawValue: 1 << 2)
        public static let dib = Formats(rawValue: 1 << 3)
        public static let files = Formats(rawValue: 1 << 4)
        /// The 16 format bits.
        public static let all = Formats(rawValue: 0xffff)
        /// Each format bit set, lowest first (the order of per-format data on the wire).
        public var bits: [Formats] { (0..<16).compactMap { rawValue & (1 << $0) != 0 ? Formats(rawValue: 1 << $0) : nil } }
    }

    public struct Actions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let caps = Actions(rawValue: 1 << 24)
        public static let request = Actions(rawValue: 1 << 25)
        public static let peek = Actions(rawValue: 1 << 26)
        public static let notify = Actions(rawValue: 1 << 27)
        public static let provide = Actions(rawValue: 1 << 28)
        public static let all: Actions = [.caps, .request, .peek, .notify, .provide]
    }

    /// One format's data in a Provide message.
    public struct Item: Equatable, Sendable {
        public var format: Formats
        public var data: [UInt8]
        public init(format: Formats, data: [UInt8]) { self.format = format; self.data = data }
    }

    public enum Message: Equatable, Sendable {
        /// Formats and actions the sender supports; `sizes` holds a limit for each format bit, lowest first.
        case caps(formats: Formats, actions: Actions, sizes: [UInt32])
        case request(Formats)
        case peek
        case notify(Formats)
        case provide([Item])
        /// An action bit we do not know (ignored, as the specification asks).
        case unknown(flags: UInt32)
    }

    /// The highest clipboard cap a user may set: 256 MiB of text is far past any real clipboard.
    public static let maxLimit = 256 * 1024 * 1024
    /// Size of the payload (flags + data) of one message, after the negative length: the whole
    /// message is buffered, so it is bounded by the text cap plus zlib's worst-case growth.
    public static func maxMessageLength(limit: Int) -> Int { Limits.maxCompressedLength(rawSize: min(limit, maxLimit) + 1) }
    /// Formats a caps message can list: 16 format bits.
    static let maxFormats = 16

    // MARK: encoding

    /// The payload (flags + data) of `m`; wrap it with `clientMessage`/`serverMessage`.
    public static func payload(_ m: Message) -> [UInt8] {
        switch m {
        case .caps(let f, let a, let sizes):
            var b = u32(f.rawValue | a.rawValue | Actions.caps.rawValue)
            for s in sizes.prefix(f.bits.count) { b += u32(s) }
            return b
        case .request(let f): return u32(Actions.request.rawValue | f.rawValue)
        case .peek: return u32(Actions.peek.rawValue)
        case .notify(let f): return u32(Actions.notify.rawValue | f.rawValue)
        case .provide(let items):
            let sorted = items.sorted { $0.format.rawValue < $1.format.rawValue }
            var flags = Actions.provide.rawValue
            var raw: [UInt8] = []
            for it in sorted {
                flags |= it.format.rawValue
                raw += u32(UInt32(clamping: it.data.count)) + it.data
            }
            return u32(flags) + deflate(raw)
        case .unknown(let flags): return u32(flags)
        }
    }

    /// ClientCutText with a negative length.
    public static func clientMessage(_ m: Message) -> [UInt8] { wrap(6, payload(m)) }
    /// ServerCutText with a negative length (for tests and reference servers).
    public static func serverMessage(_ m: Message) -> [UInt8] { wrap(3, payload(m)) }

    private static func wrap(_ type: UInt8, _ p: [UInt8]) -> [UInt8] {
        [type, 0, 0, 0] + u32(UInt32(bitPattern: -Int32(clamping: p.count))) + p
    }

    // MARK: parsing

    /// Parses the payload of one message (the |length| bytes after the negative length).
    /// `maxItemSize` bounds each provided format's inflated size: larger data is reported by
    /// `TooLarge` before anything is allocated for it. Of a Provide, only the `wanted` formats
    /// are kept: inflating stops after the last of them (formats come lowest bit first, text
    /// first of all), and one before it is inflated through a small scratch buffer, not kept.
    public static func parse(_ p: UnsafeRawBufferPointer, maxItemSize: Int, wanted: Formats = .all) throws -> Message {
        guard p.count >= 4 else {
            throw ProtocolError("extended clipboard message is \(p.count) bytes long, too short for its flags")
        }
        let flags = be32(p, 0)
        let formats = Formats(rawValue: flags & 0xffff)
        let actions = Actions(rawValue: flags & 0xff00_0000)
        if actions.contains(.caps) {
            let n = formats.bits.count
            guard p.count >= 4 + 4 * n else {
                throw ProtocolError("extended clipboard caps list \(n) formats but carry \(p.count - 4) bytes of sizes, not \(4 * n)")
            }
            let sizes = (0..<n).map { be32(p, 4 + 4 * $0) }
            return .caps(formats: formats, actions: actions.subtracting(.caps), sizes: sizes)
        }
        switch actions {
        case .request: return .request(formats)
        case .peek: return .peek
        case .notify: return .notify(formats)
        case .provide:
            return .provide(try inflateItems(UnsafeRawBufferPointer(rebasing: p[4...]), formats: formats, wanted: wanted,
                                             maxItemSize: maxItemSize))
        default: return .unknown(flags: flags)
        }
    }

    public static func parse(_ bytes: [UInt8], maxItemSize: Int = Limits.maxCutTextLength, wanted: Formats = .all) throws -> Message {
        try bytes.withUnsafeBytes { try parse($0, maxItemSize: maxItemSize, wanted: wanted) }
    }

    /// Provided data above the size limit: refused, never truncated.
    public struct TooLarge: Error, Equatable { public let format: Formats; public let length: Int; public let limit: Int }

    /// A format skipped on the way to a wanted one is inflated this much at a time.
    static let skipChunk = 16 * 1024

    private static func inflateItems(_ z: UnsafeRawBufferPointer, formats: Formats, wanted: Formats,
                                     maxItemSize: Int) throws -> [Item] {
        let stream = ZStream()
        var input = z.bindMemory(to: UInt8.self)
        var items: [Item] = []
        // Inflates up to `n` bytes into `out`, advancing through `input`; returns how many came.
        func inflate(_ out: UnsafeMutablePointer<UInt8>, _ n: Int) throws -> Int {
            var got = 0
            while got < n {
                guard let base = input.baseAddress else { break }
                let r = try stream.inflate(base, count: input.count, into: out + got, capacity: n - got,
                                           what: "extended clipboard provide")
                input = UnsafeBufferPointer(rebasing: input[r.consumed...])
                got += r.produced
                if r.consumed == 0 && r.produced == 0 { break }
            }
            return got
        }
        func ended(_ got: Int, _ n: Int, _ what: String) -> ProtocolError {
            ProtocolError("extended clipboard provide: zlib data ends after \(got) of the \(n) bytes of \(what)")
        }
        var left = formats.intersection(wanted)
        for f in formats.bits where !left.isEmpty {
            var lenBytes: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
            let got = try withUnsafeMutableBytes(of: &lenBytes) { b -> Int in
                guard let p = b.baseAddress else { return 0 }
                return try inflate(p.assumingMemoryBound(to: UInt8.self), 4)
            }
            guard got == 4 else { throw ended(got, 4, "a format's length") }
            let len = Int(lenBytes.0) << 24 | Int(lenBytes.1) << 16 | Int(lenBytes.2) << 8 | Int(lenBytes.3)
            guard len <= maxItemSize else { throw TooLarge(format: f, length: len, limit: maxItemSize) }
            guard wanted.contains(f) else {
                // not used: read through, nothing kept
                var skipped = 0
                try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: skipChunk) { b in
                    guard let base = b.baseAddress else { return }
                    while skipped < len {
                        let n = min(skipChunk, len - skipped)
                        let came = try inflate(base, n)
                        guard came == n else { throw ended(skipped + came, len, "format 0x\(String(f.rawValue, radix: 16))") }
                        skipped += n
                    }
                }
                continue
            }
            left.remove(f)
            // Grown as the data inflates (doubling from 64 KiB), not to what the length claims.
            var data: [UInt8] = []
            var chunk = 64 * 1024
            while data.count < len {
                let start = data.count, n = min(chunk, len - start)
                data.append(contentsOf: repeatElement(0, count: n))
                let came = try data.withUnsafeMutableBufferPointer { b -> Int in
                    guard let base = b.baseAddress else { return 0 }
                    return try inflate(base + start, n)
                }
                guard came == n else { throw ended(start + came, len, "format 0x\(String(f.rawValue, radix: 16))") }
                chunk *= 2
            }
            items.append(Item(format: f, data: data))
        }
        return items
    }

    // MARK: text

    /// Our text in its wire form: UTF-8, LF (and lone CR) as CRLF, a terminating NUL.
    public static func wireText(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 1)
        var prev: UInt8 = 0
        for b in s.utf8 {
            if b == 0x0a && prev != 0x0d { out.append(0x0d) }
            if prev == 0x0d && b != 0x0a { out.append(0x0a) }
            out.append(b)
            prev = b
        }
        if prev == 0x0d { out.append(0x0a) }
        out.append(0)
        return out
    }

    /// Text from its wire form: up to the first NUL, CRLF as LF. Invalid UTF-8 is an error
    /// (the text is refused rather than mangled).
    public static func text(fromWire d: [UInt8]) throws -> String {
        let end = d.firstIndex(of: 0) ?? d.count
        var out: [UInt8] = []
        out.reserveCapacity(end)
        var i = 0
        while i < end {
            let b = d[i]
            if b == 0x0d && i + 1 < end && d[i + 1] == 0x0a { i += 1; continue }
            out.append(b); i += 1
        }
        guard let s = String(validating: out, as: UTF8.self) else {
            throw ProtocolError("extended clipboard text is not valid UTF-8")
        }
        return s
    }

    // MARK: helpers

    static func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
    static func be32(_ p: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
        UInt32(p[i]) << 24 | UInt32(p[i + 1]) << 16 | UInt32(p[i + 2]) << 8 | UInt32(p[i + 3])
    }

    /// A zlib stream flushed (Z_SYNC_FLUSH), not finished, as TigerVNC writes it: LibVNCServer
    /// (x11vnc 0.9.16) takes inflate's Z_STREAM_END for an error ("zlib inflation error") and
    /// drops the text; TigerVNC and noVNC read exactly the announced lengths either way.
    static func deflate(_ input: [UInt8]) -> [UInt8] {
        var strm = z_stream()
        guard deflateInit_(&strm, Z_DEFAULT_COMPRESSION, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return [] }
        defer { deflateEnd(&strm) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&strm, uLong(input.count))) + 64)
        var produced = 0
        input.withUnsafeBufferPointer { ib in
            out.withUnsafeMutableBufferPointer { ob in
                strm.next_in = UnsafeMutablePointer(mutating: ib.baseAddress)
                strm.avail_in = UInt32(ib.count)
                strm.next_out = ob.baseAddress
                strm.avail_out = UInt32(ob.count)
                _ = CZlib.deflate(&strm, Z_SYNC_FLUSH)
                produced = ob.count - Int(strm.avail_out)
            }
        }
        return Array(out.prefix(produced))
    }
}

/// A local clipboard text made ready to send: converted (Latin-1 for the classic message, the
/// wire form for the extension) and compressed up front, off the engine's lock, so handing it
/// to the engine only appends bytes however large the text is.
public struct OutgoingCutText: Sendable {
    public let text: String
    /// The cap it was prepared for (bytes of UTF-8).
    public let limit: Int
    public let utf8Count: Int
    /// The classic message's text and how many characters Latin-1 could not carry.
    let latin1: [UInt8]
    public let dropped: Int
    /// Length of the extension's wire text (CRLF line ends, NUL) and its Provide message;
    /// the message is empty when the text is over the cap.
    let wireCount: Int
    let provide: [UInt8]

    public init(_ text: String, limit: Int) {
        self.text = text
        self.limit = limit
        utf8Count = text.utf8.count
        guard utf8Count <= limit else {
            latin1 = []; dropped = 0; wireCount = utf8Count + 1; provide = []
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8Count)
        var n = 0
        for s in text.unicodeScalars { if s.value < 256 { bytes.append(UInt8(s.value)) } else { n += 1 } }
        latin1 = bytes; dropped = n
        let wire = ExtendedClipboard.wireText(text)
        wireCount = wire.count
        provide = wire.count - 1 <= limit ? ExtendedClipboard.clientMessage(.provide([.init(format: .text, data: wire)])) : []
    }

    /// Over the cap in the extension's wire form.
    var overLimit: Bool { provide.isEmpty }
}

/// The client's side of the extended clipboard as a sans-I/O machine owned by `ClientEngine`:
/// takes the server's messages and local clipboard changes, returns bytes to send and events.
/// Used from the engine's thread only.
final class ExtendedClipboardState {
    /// Our cap on clipboard text in either direction (bytes of UTF-8).
    let limit: Int
    /// What the server's caps said it does (none before they arrive: the extension is in use
    /// from then on, `ServerParams.supportsExtendedClipboard`).
    private(set) var serverActions: ExtendedClipboard.Actions = []
    /// The most text the server takes unsolicited (a Provide without its Request); TigerVNC
    /// announces 0 and asks for everything. Requested text is bounded only by our own cap.
    private(set) var serverTextLimit = 0
    /// The Provide message for our current text, offered to the server; nil when the server
    /// owns the clipboard.
    private var local: [UInt8]?
    /// The server already has `local`: a Request is answered once per local change, so a
    /// server repeating Requests cannot make us queue the same (up to 10 MiB) text again.
    private var localProvided = false

    init(limit: Int) { self.limit = limit }

    /// One server message's payload. Structural errors throw; refused data becomes an event.
    /// True when it was the server's caps: the extension is in use from now on.
    func receive(_ p: UnsafeRawBufferPointer, out: inout [UInt8], events: inout [EngineEvent]) throws -> Bool {
        let m: ExtendedClipboard.Message
        do {
            // +1: the NUL terminator; text is the only format we use: the rest is never inflated
            m = try ExtendedClipboard.parse(p, maxItemSize: limit + 1, wanted: .text)
        } catch let t as ExtendedClipboard.TooLarge {
            events.append(.cutTextSkipped(length: t.length))
            return false
        }
        switch m {
        case .caps(let formats, let actions, let sizes):
            serverActions = actions
            serverTextLimit = formats.contains(.text) ? Int(sizes.first ?? 0) : 0
            out += ExtendedClipboard.clientMessage(.caps(formats: .text, actions: [.request, .peek, .notify, .provide],
                                                         sizes: [UInt32(clamping: limit + 1)]))
            events.append(.extendedClipboardSupported)
            return true
        case .request(let f):
            guard f.contains(.text), let provide = local, !localProvided else { return false }
            localProvided = true
            out += provide
        case .peek:
            if serverActions.contains(.notify) { out += ExtendedClipboard.clientMessage(.notify(local == nil ? [] : .text)) }
        case .notify(let f):
            local = nil   // the server owns the clipboard now
            if f.contains(.text) && serverActions.contains(.request) {
                out += ExtendedClipboard.clientMessage(.request(.text))
            }
        case .provide(let items):
            guard let t = items.first(where: { $0.format == .text }) else { return false }
            events.append(.cutText(try ExtendedClipboard.text(fromWire: t.data)))
        case .unknown:
            break
        }
        return false
    }

    /// A local clipboard change: announced (Notify) or sent outright (Provide).
    func localChanged(_ c: OutgoingCutText, out: inout [UInt8], events: inout [EngineEvent]) {
        guard !c.overLimit else {
            local = nil
            events.append(.cutTextNotSent(length: c.wireCount - 1, limit: limit))
            if serverActions.contains(.notify) { out += ExtendedClipboard.clientMessage(.notify([])) }
            return
        }
        local = c.provide
        localProvided = false
        if serverActions.contains(.notify) {
            out += ExtendedClipboard.clientMessage(.notify(.text))
        } else if serverActions.contains(.provide) {
            // unsolicited: only within the size the server announced
            guard c.wireCount <= serverTextLimit else {
                events.append(.cutTextNotSent(length: c.wireCount - 1, limit: max(0, serverTextLimit - 1)))
                return
            }
            localProvided = true
            out += c.provide
        }
    }
}
