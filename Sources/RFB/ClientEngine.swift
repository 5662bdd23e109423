/// What the client asks of the server and how it authenticates.
public struct ClientSettings: Sendable {
    /// Pixel format to request; the framebuffer is always 32 bpp and other formats are converted while decoding.
    public var pixelFormat: PixelFormat = .native
    /// Real encodings in order of preference (sent exactly in this order).
    public var encodings: [Int32] = [Encoding.tight, Encoding.copyRect, Encoding.zrle, Encoding.hextile,
                                     Encoding.zlib, Encoding.coRRE, Encoding.rre, Encoding.raw]
    /// Tight JPEG quality 0–9; nil asks for lossless.
    public var jpegQuality: Int? = nil
    /// Compression level 0–9; nil leaves the server's default.
    public var compressLevel: Int? = nil
    public var shared = true
    /// Pseudo-encodings we handle.
    public var wantCursor = true
    public var wantDesktopSize = true
    /// ExtendedDesktopSize: the server's screen layout, and SetDesktopSize once it has sent one.
    public var wantExtendedDesktopSize = true
    public var wantLastRect = true
    public var wantDesktopName = true
    /// QEMU Extended Key Event: raw key codes for servers (VMs) that take them.
    public var wantQEMUKeyEvents = true
    /// ExtendedMouseButtons: back/forward (buttons 8/9) for servers that take them.
    public var wantExtendedMouseButtons = true
    /// Extended Clipboard: UTF-8 text, used when the server offers it (classic Latin-1 otherwise).
    public var wantExtendedClipboard = true
    /// Clipboard text cap in UTF-8 bytes, both ways: larger texts are refused with an event, never truncated.
    public var clipboardLimit = Limits.maxCutTextLength
    /// The cap in force: `clipboardLimit` within what the extension allows.
    public var clipboardByteLimit: Int { min(max(0, clipboardLimit), ExtendedClipboard.maxLimit) }
    /// Security methods we accept, strongest first (vncviewer's SecurityTypes): RFB types and
    /// VeNCrypt subtypes. Only these are ever chosen, so excluding the unencrypted ones is final.
    public var securityMethods: [SecurityMethod] = SecurityMethod.defaultOrder
    /// The RFB security types `securityMethods` implies, in order (VeNCrypt for any subtype).
    /// Setting it replaces `securityMethods` with these types.
    public var securityTypes: [UInt8] {
        get {
            var out: [UInt8] = []
            for m in securityMethods {
                let t: UInt8
                switch m { case .type(let x): t = x; case .veNCrypt: t = SecurityType.veNCrypt }
                if !out.contains(t) { out.append(t) }
            }
            return out
        }
        set { securityMethods = newValue.map { .type($0) } }
    }
    /// Password for VNC authentication and the user-name types (never logged).
    public var password: [UInt8]? = nil
    /// User name for Plain, RSA-AES and Apple Remote Desktop.
    public var username: String? = nil
    /// Asked when `password` (and `username`, where needed) are not set: a terminal or window prompt.
    public var credentialProvider: CredentialProvider? = nil
    /// Decides on a certificate that did not verify, or an RSA-AES server key (trust on first
    /// use). Without one such servers are refused.
    public var trustEvaluator: TrustEvaluator? = nil
    /// The host name as the user gave it: TLS host name checking and SNI.
    public var serverName: String = ""
    public var serverPort: Int = 5900
    /// PEM file of CA certificates for X509 subtypes; nil uses the system store.
    public var x509CAFile: String? = nil
    /// host:port for messages and the known-hosts file.
    public var serverDescription: String {
        serverName.contains(":") ? "[\(serverName)]:\(serverPort)" : "\(serverName):\(serverPort)"
    }

    public init() {}

    /// The SetEncodings list: real encodings, then the pseudo-encodings.
    public var encodingList: [Int32] {
        var l = encodings
        if wantCursor { l.append(Encoding.cursor) }
        if wantDesktopSize { l.append(Encoding.desktopSize) }
        if wantExtendedDesktopSize { l.append(Encoding.extendedDesktopSize) }
        if wantLastRect { l.append(Encoding.lastRect) }
        if wantDesktopName { l.append(Encoding.desktopName) }
        if wantQEMUKeyEvents { l.append(Encoding.qemuExtendedKeyEvent) }
        if wantExtendedMouseButtons { l.append(Encoding.extendedMouseButtons) }
        if wantExtendedClipboard { l.append(ExtendedClipboard.encoding) }
        if let q = jpegQuality { l.append(Encoding.jpegQuality0 + Int32(max(0, min(9, q)))) }
        if let c = compressLevel { l.append(Encoding.compressLevel0 + Int32(max(0, min(9, c)))) }
        return l
    }
}

public enum SecurityType {
    public static let invalid: UInt8 = 0
    public static let none: UInt8 = 1
    public static let vncAuth: UInt8 = 2
    public static func name(_ t: UInt8) -> String {
        switch t {
        case 1: return "None"
        case 2: return "VncAuth"
        case 5: return "RA2"
        case 6: return "RA2ne"
        case 16: return "Tight"
        case 18: return "TLS"
        case 19: return "VeNCrypt"
        case 30: return "Apple Remote Desktop"
        case 129: return "RA2_256"
        case 130: return "RA2ne_256"
        default: return "type \(t)"
        }
    }
}

/// Something the engine reports to whoever drives it, in order.
public enum EngineEvent: Equatable, Sendable {
    /// Security negotiated (type) — useful for `--verbose`.
    case securityChosen(UInt8)
    /// ServerInit arrived; the framebuffer exists.
    case ready(name: String, width: Int, height: Int)
    case updateBegan
    /// A FramebufferUpdate is complete: the framebuffer is coherent.
    case updateEnded(rects: Int)
    case resized(width: Int, height: Int)
    /// ExtendedDesktopSize: the server's screens (after `.resized` when the size changed too).
    case screenLayout(ScreenLayout, reason: DesktopSizeReason)
    /// The server's answer to our SetDesktopSize; `message` is a sentence for the user.
    case desktopSizeRequestResult(status: DesktopSizeStatus, message: String)
    case bell
    /// ServerCutText, converted from ISO 8859-1.
    case cutText(String)
    /// ServerCutText above Limits.maxCutTextLength: skipped as it arrived.
    case cutTextSkipped(length: Int)
    /// Local clipboard text over the cap (ours or the server's announced one): not sent.
    case cutTextNotSent(length: Int, limit: Int)
    /// The server announced the Extended Clipboard: cut text is UTF-8 from now on.
    case extendedClipboardSupported
    case cursor(CursorImage)
    case desktopName(String)
    case colourMapChanged
    /// The server takes QEMU Extended Key Events: `sendKey` now sends key codes too.
    case qemuKeyEventsSupported
    /// The server takes ExtendedMouseButtons: buttons 8 and 9 reach it.
    case extendedMouseButtonsSupported
}

/// The client side of RFB as a sans-I/O state machine (TigerVNC's CConnection without sockets):
/// `feed()` bytes from the server, `takeOutput()` bytes to send, `takeEvents()` what happened.
/// Used from one thread at a time (the session thread or a benchmark); the framebuffer is written
/// only inside `feed()`.
public final class ClientEngine: SecurityContext {
    public enum Phase: Equatable, Sendable { case version, security, authenticating, initialising, normal, failed }

    public let settings: ClientSettings
    public private(set) var phase: Phase = .version
    public private(set) var framebuffer: Framebuffer?
    public private(set) var serverFormat: PixelFormat?
    public private(set) var desktopName = ""
    /// Protocol minor version in use: 3, 7 or 8.
    public private(set) var minorVersion = 8
    public private(set) var converter: PixelConverter
    /// Statistics for benchmarks: updates, rects and real-encoding pixels decoded.
    public private(set) var stats = Stats()
    public struct Stats: Sendable { public var updates = 0, rects = 0, pixels = 0, bytes = 0 }

    /// Request the next update as soon as one starts arriving (hides a round trip).
    public var pipelineRequests = true
    /// Set when the server acknowledged QEMU Extended Key Events.
    public private(set) var qemuKeyEvents = false
    /// Set when the server acknowledged ExtendedMouseButtons.
    public private(set) var extendedMouseButtons = false
    /// Set once the server sent an ExtendedDesktopSize rectangle: it takes SetDesktopSize.
    public private(set) var supportsSetDesktopSize = false
    /// The server's screens, from its last ExtendedDesktopSize; nil until it sends one.
    public private(set) var screenLayout: ScreenLayout?

    /// Plaintext RFB bytes for the server; encrypted by `channel` when one runs.
    private var output: [UInt8] = []
    /// Bytes in their on-the-wire form, ready for the socket.
    private var rawOutput: [UInt8] = []
    /// TLS or RSA-AES once the security handshake set it up; nil for plain RFB.
    private var channel: SecureChannel?
    /// Set by `startChannel` in the middle of a parse: the bytes after the current unit are raw.
    private var channelStarting = false
    /// Set by `stopChannel`: after the current unit, bytes are plain again.
    private var channelStopping = false
    /// Scratch space for raw bytes when a channel decrypts into `input`.
    private var rawScratch: [UInt8] = []
    /// What the security handshake negotiated, e.g. "VeNCrypt X509Plain, TLSv1.3 TLS_AES_256_GCM_SHA384".
    public private(set) var securityDescription = ""
    private var events: [EngineEvent] = []
    private let input = InputBuffer()
    private var decoders: [Int32: RectDecoder] = makeDecoders()
    private lazy var clipboard = ExtendedClipboardState(limit: settings.clipboardByteLimit)
    /// Set when the server announced the Extended Clipboard (UTF-8 cut text).
    public var extendedClipboard: Bool { clipboard.active }

    private enum State {
        case version
        case securityType33            // 3.3: server decides, u32
        case securityList              // 3.7+: count + types
        case vncChallenge
        case handler(SecurityHandler, UInt8)   // a type's own handshake (VeNCrypt, RSA-AES, ARD)
        case securityResult(UInt8)     // chosen type
        case failureReason(prefix: String)
        case serverInit
        case messageType
        case updateHeader
        case rectHeader
        case rect(Rect, Int32, resume: Bool)
        case skipping(Int)             // oversized cut text
        case failed
    }
    private var state: State = .version
    private var rectsLeft = 0
    private var rectsInUpdate = 0

    public init(settings: ClientSettings) {
        self.settings = settings
        converter = PixelConverter(format: settings.pixelFormat)
    }

    /// Everything to send, encrypted when a security channel runs.
    public func takeOutput() -> [UInt8] {
        flushOutput()
        defer { rawOutput.removeAll(keepingCapacity: true) }
        return rawOutput
    }
    public var hasOutput: Bool { !output.isEmpty || !rawOutput.isEmpty || channel?.hasRaw == true }
    /// Bytes waiting to be sent, not taken (plaintext not yet through a channel comes last).
    public var pendingOutput: [UInt8] { rawOutput + output }

    private func flushOutput() {
        guard let ch = channel else {
            if rawOutput.isEmpty { swap(&rawOutput, &output) } else { rawOutput += output; output.removeAll(keepingCapacity: true) }
            return
        }
        do {
            try ch.writePlain(output)
        } catch {
            // Only a broken TLS state fails here; the next feed reports the connection failed.
            state = .failed; phase = .failed
        }
        output.removeAll(keepingCapacity: true)
        rawOutput += ch.takeRaw()
    }
    public func takeEvents() -> [EngineEvent] { defer { events.removeAll(keepingCapacity: true) }; return events }

    // MARK: feeding

    /// Buffers `count` bytes and parses everything complete. A ProtocolError ends the connection.
    public func feed(_ bytes: UnsafeRawPointer, count: Int) throws {
        if let ch = channel {
            try throwingFail { try ch.ingest(bytes, count); try ch.drainPlain(into: input) }
        } else {
            input.append(bytes, count)
        }
        try parse()
    }

    private func throwingFail(_ body: () throws -> Void) throws {
        do { try body() } catch let e as ProtocolError { throw fail(e) }
    }

    public func feed(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { if let b = $0.baseAddress { try feed(b, count: $0.count) } }
    }

    /// Lets a transport receive straight into the engine's buffer: `body` gets room for
    /// `atLeast` bytes and returns how many it wrote.
    public func receive(atLeast n: Int, _ body: (UnsafeMutableRawPointer, Int) throws -> Int) throws -> Int {
        if channel != nil {
            // Raw bytes go through the channel first, so they land in a scratch buffer.
            if rawScratch.count < n { rawScratch = [UInt8](repeating: 0, count: n) }
            let got = try rawScratch.withUnsafeMutableBytes { b in try body(b.baseAddress!, b.count) }
            if got > 0 { try rawScratch.withUnsafeBytes { try feed($0.baseAddress!, count: got) } }
            return got
        }
        let tail = input.reserve(n)
        let got = try body(tail, input.capacity - input.end)
        if got > 0 { input.end += got; try parse() }
        return got
    }

    private func fail(_ e: ProtocolError) -> ProtocolError { state = .failed; phase = .failed; return e }

    private func parse() throws {
        if case .failed = state { throw ProtocolError("connection already failed") }
        while true {
            let consumed: Int
            do {
                consumed = try parseLoop()
            } catch let e as ProtocolError {
                throw fail(e)
            }
            stats.bytes += consumed
            input.consume(consumed)
            if channelStopping, let ch = channel as? EAXChannel {
                // Whatever raw bytes the channel holds were never encrypted: back to the parser.
                channelStopping = false
                channel = nil
                let left = ch.takeLeftoverRaw()
                left.withUnsafeBytes { if let b = $0.baseAddress { input.append(b, left.count) } }
                continue
            }
            guard channelStarting, let ch = channel else { return }
            // What followed the unit that started the channel was already encrypted.
            channelStarting = false
            let raw = Array(UnsafeBufferPointer(start: input.storage + input.start, count: input.count))
            input.consume(input.count)
            try throwingFail {
                try raw.withUnsafeBytes { if let b = $0.baseAddress { try ch.ingest(b, raw.count) } }
                try ch.drainPlain(into: input)
            }
        }
    }

    /// Parses units until the buffer runs short. Returns bytes consumed.
    private func parseLoop() throws -> Int {
        var r = ByteReader(base: UnsafePointer(input.storage + input.start), count: input.count)
        while true {
            r.commit()
            do {
                if try !step(&r) { return r.pos }
                if channelStarting || channelStopping { return r.pos }
            } catch is NeedMoreData {
                if case .rect(let rect, let enc, _) = state { state = .rect(rect, enc, resume: true) }
                return r.committed
            }
        }
    }

    // MARK: the state machine

    /// One unit. Returns false when there is nothing more to do without new bytes.
    private func step(_ r: inout ByteReader) throws -> Bool {
        switch state {
        case .failed:
            return false
        case .version:
            try r.require(12)
            let s = try r.string(12)
            try handleVersion(s)
        case .securityType33:
            let t = try r.u32()
            switch t {
            case 0: state = .failureReason(prefix: "server refused the connection")
            case UInt32(SecurityType.none):
                guard settings.securityTypes.contains(SecurityType.none) else {
                    throw ProtocolError("server wants security type None, which --security excludes")
                }
                events.append(.securityChosen(SecurityType.none)); startInit()
            case UInt32(SecurityType.vncAuth):
                guard settings.securityTypes.contains(SecurityType.vncAuth) else {
                    throw ProtocolError("server wants VNC authentication, which --security excludes")
                }
                events.append(.securityChosen(SecurityType.vncAuth)); state = .vncChallenge; phase = .authenticating
            default:
                throw ProtocolError("server (RFB 3.3) chose security type \(t), which this viewer does not support")
            }
        case .securityList:
            try r.require(1)
            let n = Int(r.base[r.pos])
            if n == 0 { r.pos += 1; state = .failureReason(prefix: "server refused the connection"); return true }
            try r.require(1 + n)
            r.pos += 1
            let offered = (0..<n).map { r.base[r.pos + $0] }
            r.pos += n
            // Our order decides (strongest first), and only what the user allowed.
            guard let chosen = settings.securityTypes.first(where: { offered.contains($0) }) else {
                let names = offered.map { SecurityType.name($0) }.joined(separator: ", ")
                let ours = settings.securityMethods.map { $0.name }.joined(separator: ", ")
                throw ProtocolError("no common security type: server offers \(names); this viewer accepts \(ours)")
            }
            output.append(chosen)
            events.append(.securityChosen(chosen))
            securityDescription = SecurityType.name(chosen)
            switch chosen {
            case SecurityType.vncAuth: state = .vncChallenge; phase = .authenticating
            case SecurityType.none:
                if minorVersion >= 8 { state = .securityResult(chosen) } else { startInit() }   // 3.7 sends no SecurityResult for None
            case SecurityType.veNCrypt:
                state = .handler(VeNCryptHandler(), chosen); phase = .authenticating
            case SecurityType.ra2, SecurityType.ra2ne, SecurityType.ra2_256, SecurityType.ra2ne_256:
                state = .handler(RSAAESHandler(type: chosen), chosen); phase = .authenticating
            case SecurityType.appleRemoteDesktop:
                state = .handler(ARDHandler(), chosen); phase = .authenticating
            default:
                throw ProtocolError("internal: security type \(chosen) has no handler")
            }
        case .vncChallenge:
            try r.require(16)
            let challenge = Array(UnsafeBufferPointer(start: try r.bytes(16), count: 16))
            let c = try credentials(method: "VncAuth", needsUsername: false)
            output += VNCAuth.response(challenge: challenge, password: c.password)
            state = .securityResult(SecurityType.vncAuth)
        case .handler(let h, let type):
            switch try h.step(&r, self) {
            case .progressed: break
            case .waiting: return false
            case .finished: state = .securityResult(type)   // every type but None gets a SecurityResult, in 3.7 too
            }
        case .securityResult(let chosen):
            let res = try r.u32()
            if res == 0 { startInit(); return true }
            let what: String
            switch chosen {
            case SecurityType.vncAuth: what = "authentication failed (wrong password?)"
            case SecurityType.none: what = "security handshake failed"
            default: what = "authentication failed (\(securityDescription.split(separator: ",").first.map(String.init) ?? "?"); wrong user name or password?)"
            }
            if minorVersion >= 8 { state = .failureReason(prefix: what) }
            else { throw ProtocolError(res == 2 ? "authentication failed: too many attempts" : what) }
        case .failureReason(let prefix):
            let len = Int(try r.u32())
            guard len <= Limits.maxReasonLength else {
                throw ProtocolError("\(prefix); its reason is \(len) bytes long, over the \(Limits.maxReasonLength)-byte limit")
            }
            let reason = try r.string(len)
            throw ProtocolError(reason.isEmpty ? prefix : "\(prefix): \(sanitize(reason))")
        case .serverInit:
            try r.require(24)
            let w = Int(try r.u16()), h = Int(try r.u16())
            let pf = PixelFormat(wire: try r.bytes(16))
            let nameLen = Int(try r.u32())
            guard nameLen <= Limits.maxDesktopNameLength else {
                throw ProtocolError("ServerInit desktop name is \(nameLen) bytes long (limit \(Limits.maxDesktopNameLength))")
            }
            let name = try r.string(nameLen)
            try checkSize(w, h, what: "ServerInit")
            serverFormat = pf
            desktopName = name
            framebuffer = Framebuffer(width: w, height: h)
            phase = .normal
            state = .messageType
            // Our format, our encodings, then the first full update.
            output += ClientMessage.setPixelFormat(settings.pixelFormat)
            output += ClientMessage.setEncodings(settings.encodingList)
            output += ClientMessage.updateRequest(incremental: false, Rect(x: 0, y: 0, w: w, h: h))
            events.append(.ready(name: name, width: w, height: h))
        case .messageType:
            try parseMessage(&r)
        case .updateHeader:
            try r.require(3)
            r.pos += 1
            let n = Int(try r.u16())
            rectsLeft = n == 0xffff ? Int.max : n   // 0xFFFF: count unknown, ended by LastRect
            rectsInUpdate = 0
            events.append(.updateBegan)
            if pipelineRequests { requestUpdate() }
            if rectsLeft == 0 { endUpdate() } else { state = .rectHeader }
        case .rectHeader:
            try r.require(12)
            let x = Int(try r.u16()), y = Int(try r.u16()), w = Int(try r.u16()), h = Int(try r.u16())
            let enc = try r.s32()
            try beginRect(Rect(x: x, y: y, w: w, h: h), enc, &r)
        case .rect(let rect, let enc, let resume):
            guard let fb = framebuffer, let dec = decoders[enc] else { throw ProtocolError("internal: no decoder") }
            try dec.decode(rect: rect, reader: &r, fb: fb, pf: converter, resume: resume)
            fb.addDamage(rect)
            stats.pixels += rect.area
            finishRect()
        case .skipping(let left):
            let n = min(left, r.remaining)
            if n == 0 { return false }
            r.pos += n
            state = left - n == 0 ? .messageType : .skipping(left - n)
        }
        return true
    }

    private func handleVersion(_ s: String) throws {
        // "RFB xxx.yyy\n"
        let u = Array(s.utf8)
        guard u.count == 12, s.hasPrefix("RFB "), u[7] == UInt8(ascii: "."), u[11] == 10,
              let major = Int(String(decoding: u[4..<7], as: UTF8.self)),
              let minor = Int(String(decoding: u[8..<11], as: UTF8.self)) else {
            throw ProtocolError("not an RFB server: it greeted with \(sanitize(s).debugDescription)")
        }
        // As TigerVNC: below 3.3 is unusable; 3.3–3.6 speak 3.3; 3.7; 3.8 and anything
        // newer (3.889 from macOS, RealVNC's 4.x/5.x) speak 3.8.
        if major < 3 || (major == 3 && minor < 3) {
            throw ProtocolError("server speaks RFB \(major).\(minor), older than 3.3, which this viewer does not support")
        }
        if major == 3 && minor < 7 { minorVersion = 3 }
        else if major == 3 && minor == 7 { minorVersion = 7 }
        else { minorVersion = 8 }
        output += Array(String(format3(minorVersion)).utf8)
        phase = .security
        state = minorVersion == 3 ? .securityType33 : .securityList
    }

    // MARK: security hooks

    func send(_ bytes: [UInt8]) { output += bytes }

    func startChannel(_ ch: SecureChannel) {
        flushOutput()   // what is queued was meant to go out before encryption starts
        channel = ch
        channelStarting = true
    }

    func stopChannel() {
        flushOutput()   // the last encrypted message goes out before the channel ends
        channelStopping = true
    }

    func credentials(method: String, needsUsername: Bool) throws -> Credentials {
        if let pw = settings.password, !needsUsername || settings.username != nil {
            return Credentials(username: settings.username ?? "", password: pw)
        }
        let req = CredentialRequest(method: method, needsUsername: needsUsername, server: settings.serverDescription)
        if let p = settings.credentialProvider, let c = p(req) {
            if needsUsername && c.username.isEmpty { throw ProtocolError("\(method) needs a user name, and none was given") }
            return c
        }
        if needsUsername {
            throw ProtocolError("server requires a user name and password (\(method)): set VNC_USERNAME and VNC_PASSWORD (or --password-file), or run on a terminal to be asked")
        }
        throw ProtocolError("server requires a VNC password: give --password-file FILE or set VNC_PASSWORD")
    }

    func trust(_ id: ServerIdentity) throws {
        if let ev = settings.trustEvaluator {
            switch ev(id) {
            case .accept: return
            case .reject(let why): throw ProtocolError(why)
            }
        }
        switch id.kind {
        case .x509:
            throw ProtocolError("the certificate of \(id.server) did not verify (\(id.verifyError ?? "unknown reason")); SHA-256 fingerprint \(id.displayFingerprint). \(id.remedy)")
        case .rsa:
            throw ProtocolError("the RSA-AES key of \(id.server) is not known; fingerprint \(id.displayFingerprint). Accept it once with --trust-new-certificate")
        }
    }

    func describeSecurity(_ s: String) { securityDescription = s }

    private func format3(_ minor: Int) -> String { "RFB 003.00\(minor)\n" }

    private func startInit() {
        output.append(settings.shared ? 1 : 0)
        phase = .initialising
        state = .serverInit
    }

    private func checkSize(_ w: Int, _ h: Int, what: String) throws {
        guard w <= Limits.maxFramebufferDimension, h <= Limits.maxFramebufferDimension,
              w * h <= Limits.maxFramebufferPixels else {
            throw ProtocolError("\(what) asks for a \(w)x\(h) framebuffer, over the \(Limits.maxFramebufferDimension)x\(Limits.maxFramebufferDimension) and \(Limits.maxFramebufferPixels / (1024 * 1024)) Mpixel limits")
        }
    }

    private func parseMessage(_ r: inout ByteReader) throws {
        let type = try r.u8()
        switch type {
        case 0:
            state = .updateHeader
        case 1: // SetColourMapEntries
            try r.require(5)
            r.pos += 1
            let first = Int(try r.u16()), n = Int(try r.u16())
            try r.require(n * 6)
            let size = converter.colourMapSize
            if size > 0 {
                guard first + n <= size else {
                    throw ProtocolError("SetColourMapEntries writes entries \(first)..<\(first + n), past the \(size)-entry colour map")
                }
                for i in 0..<n {
                    let red = try r.u16(), green = try r.u16(), blue = try r.u16()
                    converter.setColourMapEntry(first + i, r: red, g: green, b: blue)
                }
                events.append(.colourMapChanged)
            } else {
                r.pos += n * 6   // true colour: a colour map means nothing to us
            }
        case 2:
            events.append(.bell)
        case 3: // ServerCutText
            try r.require(7)
            r.pos += 3
            let signed = try r.s32()
            if signed < 0 && settings.wantExtendedClipboard {
                // Extended Clipboard: |length| bytes of flags and payload
                let n = -Int(signed)
                if n > ExtendedClipboard.maxMessageLength(limit: clipboard.limit) {
                    events.append(.cutTextSkipped(length: n))
                    state = .skipping(n)
                    return
                }
                let p = try r.bytes(n)
                try clipboard.receive(UnsafeRawBufferPointer(start: p, count: n), out: &output, events: &events)
                return
            }
            let len = Int(UInt32(bitPattern: signed))
            if len > min(Limits.maxCutTextLength, clipboard.limit) {
                // Skip as it arrives: never buffer what a length field claims.
                events.append(.cutTextSkipped(length: len))
                state = .skipping(len)
                return
            }
            let p = try r.bytes(len)
            // ISO 8859-1: each byte is the Unicode scalar of the same value.
            var s = String.UnicodeScalarView()
            for i in 0..<len { s.append(Unicode.Scalar(p[i])) }
            events.append(.cutText(String(s)))
        default:
            throw ProtocolError("unknown server message type \(type)")
        }
    }

    private func beginRect(_ rect: Rect, _ enc: Int32, _ r: inout ByteReader) throws {
        guard let fb = framebuffer else { throw ProtocolError("internal: update before ServerInit") }
        stats.rects += 1
        switch enc {
        case Encoding.lastRect:
            endUpdate()
        case Encoding.desktopSize:
            try checkSize(rect.w, rect.h, what: "DesktopSize")
            fb.resize(width: rect.w, height: rect.h)
            events.append(.resized(width: rect.w, height: rect.h))
            finishRect()
        case Encoding.extendedDesktopSize:
            try parseExtendedDesktopSize(rect, fb, &r)
            finishRect()
        case Encoding.desktopName:
            let len = Int(try r.u32())
            guard len <= Limits.maxDesktopNameLength else {
                throw ProtocolError("DesktopName is \(len) bytes long (limit \(Limits.maxDesktopNameLength))")
            }
            desktopName = try r.string(len)
            events.append(.desktopName(desktopName))
            finishRect()
        case Encoding.cursor:
            try parseCursor(rect, &r)
            finishRect()
        case Encoding.extendedMouseButtons:
            // an empty rect: the server's acknowledgement
            if settings.wantExtendedMouseButtons && !extendedMouseButtons {
                extendedMouseButtons = true
                events.append(.extendedMouseButtonsSupported)
            }
            finishRect()
        case Encoding.qemuExtendedKeyEvent:
            // an empty rect: the server's acknowledgement
            if settings.wantQEMUKeyEvents && !qemuKeyEvents {
                qemuKeyEvents = true
                events.append(.qemuKeyEventsSupported)
            }
            finishRect()
        default:
            guard decoders[enc] != nil else {
                throw ProtocolError("server sent a rectangle in \(Encoding.name(enc)), which this viewer does not know")
            }
            guard fb.contains(rect) else {
                throw ProtocolError("\(Encoding.name(enc)) rectangle \(rect) extends past the \(fb.width)x\(fb.height) framebuffer")
            }
            state = .rect(rect, enc, resume: false)
        }
    }

    /// ExtendedDesktopSize: x is the reason, y the status of a reply to us, w/h the framebuffer;
    /// then a screen count (u8), 3 padding bytes and 16 bytes per screen. All bytes are
    /// required before any state changes, so a drip-fed rect parses the same.
    private func parseExtendedDesktopSize(_ rect: Rect, _ fb: Framebuffer, _ r: inout ByteReader) throws {
        guard let reason = DesktopSizeReason(rawValue: rect.x) else {
            throw ProtocolError("ExtendedDesktopSize gives reason \(rect.x); the protocol defines 0 (server), 1 (this client) and 2 (another client)")
        }
        try r.require(4)
        let n = Int(r.base[r.pos])
        guard n <= Limits.maxScreens else {
            throw ProtocolError("ExtendedDesktopSize lists \(n) screens, over the limit of \(Limits.maxScreens)")
        }
        try r.require(4 + 16 * n)
        r.pos += 4
        var screens: [Screen] = []
        screens.reserveCapacity(n)
        for _ in 0..<n {
            let id = try r.u32()
            let x = Int(try r.u16()), y = Int(try r.u16()), w = Int(try r.u16()), h = Int(try r.u16())
            let flags = try r.u32()
            screens.append(Screen(id: id, x: x, y: y, width: w, height: h, flags: flags))
        }
        supportsSetDesktopSize = true
        let status = reason == .thisClient ? DesktopSizeStatus(code: rect.y) : .ok
        if !status.isSuccess {
            // A refused request: the rest describes nothing new and is ignored.
            events.append(.desktopSizeRequestResult(status: status, message: status.message))
            return
        }
        try checkSize(rect.w, rect.h, what: "ExtendedDesktopSize")
        let layout = ScreenLayout(width: rect.w, height: rect.h, screens: screens)
        if let problem = layout.problem() {
            throw ProtocolError("ExtendedDesktopSize layout \(problem)")
        }
        if rect.w != fb.width || rect.h != fb.height {
            fb.resize(width: rect.w, height: rect.h)
            events.append(.resized(width: rect.w, height: rect.h))
        }
        screenLayout = layout
        events.append(.screenLayout(layout, reason: reason))
        if reason == .thisClient {
            events.append(.desktopSizeRequestResult(status: status, message: status.message))
        }
    }

    private func parseCursor(_ rect: Rect, _ r: inout ByteReader) throws {
        let w = rect.w, h = rect.h
        guard w <= Limits.maxCursorDimension, h <= Limits.maxCursorDimension else {
            throw ProtocolError("cursor of \(w)x\(h) is over the \(Limits.maxCursorDimension)x\(Limits.maxCursorDimension) limit")
        }
        let bpp = converter.bytesPerPixel
        let maskRow = (w + 7) / 8
        try r.require(w * h * bpp + maskRow * h)
        let pix = try r.bytes(w * h * bpp)
        let mask = try r.bytes(maskRow * h)
        var argb = [UInt32](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let visible = mask[y * maskRow + x / 8] & (0x80 >> UInt8(x % 8)) != 0
                if visible { argb[y * w + x] = 0xff00_0000 | converter.pixel(pix + (y * w + x) * bpp) }
            }
        }
        // A hotspot outside the image is clamped rather than trusted.
        let hx = min(rect.x, max(0, w - 1)), hy = min(rect.y, max(0, h - 1))
        events.append(.cursor(CursorImage(width: w, height: h, hotX: hx, hotY: hy, argb: argb)))
    }

    private func finishRect() {
        rectsInUpdate += 1
        if rectsLeft != Int.max { rectsLeft -= 1 }
        if rectsLeft == 0 { endUpdate() } else { state = .rectHeader }
    }

    private func endUpdate() {
        stats.updates += 1
        events.append(.updateEnded(rects: rectsInUpdate))
        state = .messageType
        if !pipelineRequests { requestUpdate() }
    }

    // MARK: client messages

    /// Update request for `rect` (default: the whole framebuffer). A non-incremental request must
    /// be answered, which makes a 1x1 one a cheap liveness probe.
    public func requestUpdate(incremental: Bool = true, rect: Rect? = nil) {
        guard let fb = framebuffer else { return }
        output += ClientMessage.updateRequest(incremental: incremental, (rect ?? fb.bounds).intersection(fb.bounds))
    }

    /// `buttons`: bit n is button n+1; buttons 8/9 go out only as the server can take them.
    public func sendPointer(x: Int, y: Int, buttons: UInt16) {
        guard phase == .normal else { return }
        // button 9 has no classic bit: without the extension it is not sent
        let mask = extendedMouseButtons ? buttons : buttons & 0xff
        output += ClientMessage.pointerEvent(x: x, y: y, buttons: mask, extended: extendedMouseButtons)
    }

    /// A key press or release. `xtKeycode` (XT scancode, 0xE0xx for extended keys) goes along when
    /// the server takes QEMU Extended Key Events; otherwise only the keysym is sent.
    public func sendKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32? = nil) {
        guard phase == .normal else { return }
        if qemuKeyEvents, let code = xtKeycode {
            output += ClientMessage.qemuKeyEvent(keysym: keysym, keycode: code, down: down)
        } else {
            output += ClientMessage.keyEvent(keysym: keysym, down: down)
        }
    }

    /// SetDesktopSize: asks the server for a `width`x`height` framebuffer with these screens
    /// (default: one screen covering it, keeping the current first screen's id). The answer
    /// arrives as `.desktopSizeRequestResult`. Throws, sending nothing, when the server has not
    /// shown support (no ExtendedDesktopSize yet) or the layout is invalid.
    public func requestDesktopSize(width: Int, height: Int, screens: [Screen]? = nil) throws {
        guard phase == .normal, supportsSetDesktopSize else {
            throw DesktopSizeRequestError("the server does not support changing its desktop size (it has sent no ExtendedDesktopSize)")
        }
        guard width > 0, height > 0, width <= min(Limits.maxFramebufferDimension, 65535),
              height <= min(Limits.maxFramebufferDimension, 65535), width * height <= Limits.maxFramebufferPixels else {
            throw DesktopSizeRequestError("cannot request a \(width)x\(height) desktop: sizes go from 1 to \(Limits.maxFramebufferDimension) and up to \(Limits.maxFramebufferPixels / (1024 * 1024)) Mpixel")
        }
        let list = screens ?? [Screen(id: screenLayout?.screens.first?.id ?? 0, x: 0, y: 0, width: width, height: height,
                                      flags: screenLayout?.screens.first?.flags ?? 0)]
        if let problem = ScreenLayout(width: width, height: height, screens: list).problem() {
            throw DesktopSizeRequestError("the requested layout \(problem)")
        }
        output += ClientMessage.setDesktopSize(width: width, height: height, screens: list)
    }

    /// Local clipboard text for the server: Extended Clipboard (UTF-8; Notify, then Provide on
    /// the server's Request) when the server announced it, else classic cut text, where
    /// characters Latin-1 cannot carry are left out; returns how many were.
    @discardableResult
    public func sendCutText(_ text: String) -> Int {
        sendCutText(OutgoingCutText(text, limit: clipboard.limit))
    }

    /// The same with the conversion and compression already done (see `OutgoingCutText`).
    @discardableResult
    public func sendCutText(_ prepared: OutgoingCutText) -> Int {
        guard phase == .normal else { return 0 }
        let c = prepared.limit == clipboard.limit ? prepared : OutgoingCutText(prepared.text, limit: clipboard.limit)
        // LibVNCServer (x11vnc 0.9.16) announces the Extended Clipboard without Notify but
        // drops provided text unless the application hooked setXCutTextUTF8, which x11vnc does
        // not: to such a server the classic message goes first, then the Provide, so a server
        // that takes both ends with the UTF-8 text.
        if clipboard.active && clipboard.serverActions.contains(.notify) {
            clipboard.localChanged(c, out: &output, events: &events)
            return 0
        }
        guard c.utf8Count <= clipboard.limit else {
            if clipboard.active { clipboard.localChanged(c, out: &output, events: &events) }
            else { events.append(.cutTextNotSent(length: c.utf8Count, limit: clipboard.limit)) }
            return 0
        }
        defer {
            // over the size the server takes unsolicited the classic message alone carries it
            if clipboard.active && c.wireCount <= clipboard.serverTextLimit {
                clipboard.localChanged(c, out: &output, events: &events)
            }
        }
        output += ClientMessage.clientCutText(latin1: c.latin1)
        return c.dropped
    }

    private func sanitize(_ s: String) -> String {
        String(s.unicodeScalars.filter { $0.value >= 32 && $0.value != 127 }.prefix(500).map(Character.init))
    }
}
