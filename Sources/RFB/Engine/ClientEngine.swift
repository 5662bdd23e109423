/// The client side of RFB as a sans-I/O state machine (TigerVNC's CConnection without sockets):
/// `feed()` bytes from the server, `takeOutput()` bytes to send, `takeEvents()` what happened.
/// It never blocks: a question for the user (credentials, an unverified identity) is an event,
/// and the engine waits in a phase until the answer comes through `provideCredentials` or
/// `answerTrust`. Used from one thread at a time (the session thread or a benchmark); the
/// framebuffer is written inside `feed()` under its own lock, one rect at a time.
///
/// The engine is split by concern: this file (buffers, parsing loop, update framing),
/// `Handshake.swift` (version, security, ServerInit, answers), `MessageReader.swift` (server
/// messages and pseudo-encodings) and `MessageWriter.swift` (client messages).
public final class ClientEngine: SecurityContext {
    public enum Phase: Equatable, Sendable {
        case version, security, authenticating
        /// Waiting for `provideCredentials` (after `.credentialsRequired`).
        case awaitingCredentials
        /// Waiting for `answerTrust` (after `.trustRequired`).
        case awaitingTrust
        case initialising, normal, failed
    }

    // `@exclusivity(unchecked)`: properties every rect reads or writes. Each access of a class
    // property is otherwise a runtime check (swift_beginAccess, a thread-local lookup), a tenth
    // of CoRRE's decode; these are plain values used by the session thread alone, never passed
    // inout across a call that could touch them again.

    /// The quality, compression and encodings change at run time (`changeEncodings`).
    @exclusivity(unchecked) public internal(set) var settings: ClientSettings
    public internal(set) var phase: Phase = .version
    @exclusivity(unchecked) public internal(set) var framebuffer: Framebuffer?
    public internal(set) var serverFormat: PixelFormat?
    public internal(set) var desktopName = ""
    /// Protocol minor version in use: 3, 7 or 8.
    public internal(set) var minorVersion = 8
    @exclusivity(unchecked) public internal(set) var converter: PixelConverter
    /// Statistics for benchmarks: updates, rects and real-encoding pixels decoded, and the
    /// resizes made (a run of resize rects makes one: DesktopResize.swift).
    @exclusivity(unchecked) public internal(set) var stats = Stats()
    public struct Stats: Sendable { public var updates = 0, rects = 0, pixels = 0, bytes = 0, resizes = 0 }
    /// Requests, fences and continuous-update messages (ContinuousUpdates.swift).
    public internal(set) var counters = FlowCounters()
    var flow = FlowState()
    /// The bounds of the rects decoded while a JPEG quality was asked for (they may be lossy),
    /// since `takeLossyBounds`: what a lossless refresh must cover.
    @exclusivity(unchecked) public internal(set) var lossyBounds: Rect?
    public func takeLossyBounds() -> Rect? { defer { lossyBounds = nil }; return lossyBounds }
    /// A lossless refresh under way: its area, and the pixels of it decoded losslessly since
    /// (a server may send it in pieces, between other updates).
    public var refreshArea: Rect? { didSet { refreshCovered = 0 } }
    @exclusivity(unchecked) public internal(set) var refreshCovered = 0
    /// Every encoding a SetEncodings of this connection offered (rects of an encoding offered
    /// once may still come after a later list left it out).
    public internal(set) var offeredEncodings: Set<Int32> = []
    /// The real encoding of the last rect decoded (nil before the first).
    @exclusivity(unchecked) public internal(set) var lastEncoding: Int32?
    /// The size the server last asked for, not made yet (DesktopResize.swift).
    @exclusivity(unchecked) var pendingResize: (width: Int, height: Int)?

    /// Request the next update as soon as one starts arriving (hides a round trip).
    public var pipelineRequests = true
    /// Pixels of rect work after which parsing stops and returns, leaving the rest buffered
    /// (`hasDeferredWork`): the driver can then look at its commands and at `stop()` between
    /// rects, however cheap the bytes were that asked for the work (one 12-byte RRE subrect
    /// can fill 64 Mpixel). A benchmark leaves it unlimited.
    public var workBudgetPixels = Int.max
    /// Any thread may cancel it to end a long decode between its units (`stop()` of a session).
    public let cancellation = DecodeCancellation()
    /// Parsing stopped on the work budget with complete units still buffered: call `resume()`.
    public internal(set) var hasDeferredWork = false
    /// Fuzzing only (see `FixedKeys`): never set by the viewer.
    @_spi(Fuzzing) public var fixedKeys: FixedKeys?
    /// Fuzzing only: a security channel (TLS, AES-EAX) runs, so what follows is ciphertext.
    @_spi(Fuzzing) public var hasSecureChannel: Bool { channel != nil }
    /// Set when the server acknowledged QEMU Extended Key Events.
    public internal(set) var qemuKeyEvents = false
    /// QEMU audio as we asked for it (`setAudio`): ever on this connection, and now.
    var audio = (asked: false, on: false)
    /// Set when the server acknowledged ExtendedMouseButtons.
    public internal(set) var extendedMouseButtons = false
    /// Set once the server sent an ExtendedDesktopSize rectangle: it takes SetDesktopSize.
    public internal(set) var supportsSetDesktopSize = false
    /// The server's screens, from its last ExtendedDesktopSize; nil until it sends one.
    public internal(set) var screenLayout: ScreenLayout?

    /// Plaintext RFB bytes for the server; encrypted by `channel` when one runs.
    var output: [UInt8] = []
    /// Bytes in their on-the-wire form, ready for the socket.
    private var rawOutput: [UInt8] = []
    /// TLS or RSA-AES once the security handshake set it up; nil for plain RFB.
    var channel: SecureChannel?
    /// Set by `startChannel` in the middle of a parse: the bytes after the current unit are raw.
    var channelStarting = false
    /// Set by `stopChannel`: after the current unit, bytes are plain again.
    var channelStopping = false
    /// Scratch space for raw bytes when a channel decrypts into `input`.
    private var rawScratch: [UInt8] = []
    /// Whether the login asked for a user name (for the message when it is refused).
    var usernameAsked = false
    /// Whether a password (and user name) went to the server: a close or a malformed ServerInit
    /// after it is reported as a refused login.
    var credentialsSent = false
    /// The security method in use once chosen (a VeNCrypt subtype once the server took it).
    public internal(set) var chosenMethod: SecurityMethod?
    /// What the security handshake negotiated, e.g. "VeNCrypt X509Plain, TLSv1.3 TLS_AES_256_GCM_SHA384".
    public internal(set) var securityDescription = ""
    @exclusivity(unchecked) var events: [EngineEvent] = []
    private let input = InputBuffer()
    /// A recording's tap (MessageTap.swift): armed until the next message boundary, then
    /// fed from absolute stream offset `tapFrom` on.
    var tap: MessageTap?
    @exclusivity(unchecked) var tapArmed = false
    @exclusivity(unchecked) var tapFrom: Int?
    /// Changes the tap makes to the stream, in order (MessageTap.swift).
    var tapEdits: [TapEdit] = []
    /// The update just ended without the server's LastRect: the tap adds one.
    var tapNeedsLastRect = false
    @exclusivity(unchecked) var tapServerLastRect = false
    /// Made as their encodings first appear (`decoder(_:)`).
    @exclusivity(unchecked) var decoders: [Int32: RectDecoder] = [:]
    /// Told of the time spent inside zlib and TurboJPEG (benchmarks); given to each decoder.
    let probe: LibraryProbe?
    /// Where the framebuffer's pixels come from.
    let pixelAllocator: any PixelAllocator
    /// The decoder of the rect being decoded (`state` .rect), looked up once per rect.
    @exclusivity(unchecked) var rectDecoder: RectDecoder?
    /// Worker threads for Tight, ZRLE, Hextile and (Co)RRE rects (settings.decodeThreads > 1).
    @exclusivity(unchecked) var jobs: DecodeManager?
    lazy var clipboard = ExtendedClipboardState(limit: settings.clipboardByteLimit)
    /// Set when the server announced the Extended Clipboard (UTF-8 cut text).
    public var extendedClipboard: Bool { clipboard.active }

    /// Credentials given by `provideCredentials`, kept until the unit that asked for them sent
    /// them (it is parsed again with them), then dropped: the Secret zeroes itself.
    var answeredCredentials: Credentials?
    /// How the server's identity was checked in this handshake (`channelProtection`).
    public internal(set) var peerIdentity: PeerIdentityCheck = .none
    /// `output` holds a secret (`sendSecret`): zeroed once it went through the channel.
    var outputHoldsSecret = false
    /// Decisions given by `answerTrust`, by fingerprint.
    var answeredTrust: [[UInt8]: TrustDecision] = [:]
    /// The question last asked (`.credentialsRequired` or `.trustRequired`).
    var question: EngineEvent?
    /// The phase to go back to once the question is answered.
    var phaseBeforeQuestion: Phase = .authenticating

    enum State {
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
        case skipping(Int)             // oversized cut text, audio we turned off
        case failed
    }
    @exclusivity(unchecked) var state: State = .version
    @exclusivity(unchecked) var rectsLeft = 0
    @exclusivity(unchecked) var rectsInUpdate = 0
    /// Rect pixels done in the current parse call, against `workBudgetPixels`.
    @exclusivity(unchecked) private var workDone = 0

    /// Rects in flight are let go (a job and the manager hold each other until it is retired).
    deinit { jobs?.abandon() }

    /// `probe`, when given, is told of the time spent inside zlib and TurboJPEG (benchmarks).
    /// With `settings.decodeThreads` above 1, rects also decode on `workers` when given (threads
    /// that outlive this engine: a session's, the fuzz harness's), else on threads of its own
    /// (`decodeThreads` - 1 of them, ending with it).
    /// `pixels` gives the framebuffer its memory (the heap by default).
    public init(settings: ClientSettings, probe: LibraryProbe? = nil, workers: DecodeWorkers? = nil,
                pixels: any PixelAllocator = HeapPixels()) {
        self.settings = settings
        pixelAllocator = pixels
        converter = PixelConverter(format: settings.pixelFormat)
        self.probe = probe
        if settings.decodeThreads > 1 {
            jobs = DecodeManager(workers: workers ?? DecodeWorkers(count: settings.decodeThreads - 1))   // the session thread decodes too
        }
    }

    /// Everything to send, encrypted when a security channel runs.
    public func takeOutput() -> [UInt8] {
        flushOutput()
        // Handed over, not copied: clearing a buffer the caller now shares would allocate anew.
        var out: [UInt8] = []
        swap(&out, &rawOutput)
        return out
    }
    public var hasOutput: Bool { !output.isEmpty || !rawOutput.isEmpty || channel?.hasRaw == true }
    /// Bytes waiting to be sent, not taken (plaintext not yet through a channel comes last).
    public var pendingOutput: [UInt8] { rawOutput + output }

    func flushOutput() {
        guard let ch = channel else {
            // in clear: what goes on the wire is handed over as it is (VncAuth's response, Plain)
            outputHoldsSecret = false
            if rawOutput.isEmpty { swap(&rawOutput, &output) } else { rawOutput += output; output.removeAll(keepingCapacity: true) }
            return
        }
        do {
            try ch.writePlain(output)
        } catch {
            // Only a broken TLS state fails here; the next feed reports the connection failed.
            state = .failed; phase = .failed
        }
        if outputHoldsSecret {
            VNCAuth.wipe(&output)
            outputHoldsSecret = false
        }
        output.removeAll(keepingCapacity: true)
        rawOutput += ch.takeRaw()
    }
    /// Before the connection is closed: ends an encrypted session in order (TLS close_notify
    /// into the output), so the server sees a clean end and not a truncation.
    public func closeSecureChannel() {
        guard let ch = channel else { return }
        if !output.isEmpty { flushOutput() }
        ch.close()
        rawOutput += ch.takeRaw()
    }
    /// The server ended the encrypted stream (TLS close_notify): the connection is over even
    /// if the socket stays open, and later bytes are dropped unread.
    public var streamEnded: Bool { channel?.peerClosed ?? false }
    /// Part of a server message is buffered or being decoded: a server that stops sending now
    /// is stalled, not idle.
    public var isMidMessage: Bool {
        guard phase == .normal else { return false }
        if input.count > 0 { return true }
        if case .messageType = state { return false }
        return true
    }
    public func takeEvents() -> [EngineEvent] {
        if events.isEmpty { return [] }
        var out: [EngineEvent] = []
        swap(&out, &events)
        return out
    }

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
            let got = try rawScratch.withUnsafeMutableBytes { b -> Int in
                guard let p = b.baseAddress else { return 0 }
                return try body(p, b.count)
            }
            if got > 0 { try rawScratch.withUnsafeBytes { b in if let p = b.baseAddress { try feed(p, count: got) } } }
            return got
        }
        let tail = input.reserve(n)
        let got = try body(tail, input.capacity - input.end)
        if got > 0 { input.end += got; try parse() }
        return got
    }

    /// Parses what is buffered after parsing stopped on the work budget (or an answer arrived).
    public func resume() throws { try parse() }

    /// The phase the engine was in when it failed (a failure while negotiating security is
    /// the server, or the user, saying no: retrying cannot help).
    public internal(set) var phaseAtFailure: Phase?

    func fail(_ e: ProtocolError) -> ProtocolError {
        if phaseAtFailure == nil && phase != .failed { phaseAtFailure = phase }
        state = .failed; phase = .failed
        return e
    }

    /// Rects on workers may run on past a feed that ends inside an update: they land before the
    /// update's end (`endUpdate`), and workers add damage only after their pixels.
    func parse() throws {
        do {
            try parseInput()
            // what the front end reads next has the size the server last asked for
            if pendingResize != nil { do { try applyResize() } catch let e as ProtocolError { throw fail(e) } }
        } catch {
            // a rect on a worker failed first: its message is the one the sequential path gives
            if let o = jobs, o.hasPending { do { try o.drain() } catch let e as ProtocolError { throw fail(e) } }
            // the size the server set before the failure, as a parse that stopped between (fed
            // in pieces) would have made it
            if pendingResize != nil { try? applyResize() }
            throw error
        }
        try checkWorkers()
    }

    private func parseInput() throws {
        if case .failed = state { throw ProtocolError("connection already failed") }
        hasDeferredWork = false
        workDone = 0
        while true {
            let consumed: Int
            do {
                consumed = try parseLoop()
            } catch let e as ProtocolError {
                throw fail(e)
            }
            if tapFrom != nil { tapConsumed(UnsafeRawPointer(input.storage + input.start), consumed) }
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
            if !channelStarting, let ch = channel as? EAXChannel, ch.oneMessageAtATime, ch.holdsMessage,
               !hasDeferredWork, lastQuestion == nil {
                // the next message, now that the parser has used the last (see oneMessageAtATime)
                try throwingFail { try ch.drainPlain(into: input) }
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

    /// Parses units until the buffer runs short, a question waits, or the work budget is
    /// spent. Returns bytes consumed.
    private func parseLoop() throws -> Int {
        var r = ByteReader(base: UnsafePointer(input.storage + input.start), count: input.count)
        while true {
            r.commit()
            do {
                if try !step(&r) { return r.pos }
                if tapNeedsLastRect { tapAfterStep(r) }
                if channelStarting || channelStopping { return r.pos }
                if flow.pauseParsing {
                    // a BlockAfter fence: nothing more until its answer has been taken
                    flow.pauseParsing = false
                    hasDeferredWork = r.remaining > 0
                    return r.pos
                }
                if workDone >= workBudgetPixels {
                    hasDeferredWork = r.remaining > 0
                    return r.pos
                }
            } catch is NeedMoreData {
                if case .rect(let rect, let enc, _) = state { state = .rect(rect, enc, resume: true) }
                return r.committed
            } catch is AwaitingAnswer {
                // the unit is parsed again from its start once the answer is in
                return r.committed
            }
        }
    }

    /// One unit. Returns false when there is nothing more to do without new bytes.
    private func step(_ r: inout ByteReader) throws -> Bool {
        switch state {
        case .failed:
            return false
        case .messageType:
            if tapArmed || tapFrom != nil { tapBoundary(r) }
            try parseMessage(&r)
        case .updateHeader:
            try r.require(3)
            r.pos += 1
            let n = Int(try r.u16())
            if tapFrom != nil { tapUpdateHeader(r) }
            rectsLeft = n == 0xffff ? Int.max : n   // 0xFFFF: count unknown, ended by LastRect
            rectsInUpdate = 0
            events.append(.updateBegan)
            if pipelineRequests && shouldPipeline() { requestUpdate() }
            if rectsLeft == 0 { try endUpdate() } else { state = .rectHeader }
        case .rectHeader:
            try r.require(12)
            let header = r.pos
            let x = Int(try r.u16()), y = Int(try r.u16()), w = Int(try r.u16()), h = Int(try r.u16())
            let enc = try r.s32()
            try beginRect(Rect(x: x, y: y, w: w, h: h), enc, &r)
            if tapFrom != nil { tapRectParsed(headerAt: header, enc, r) }
        case .rect(let rect, let enc, let resume):
            guard let fb = framebuffer, let dec = rectDecoder else { throw ProtocolError("internal: no decoder for \(enc)") }
            if dec.locksFramebufferItself {
                try dec.decode(rect: rect, reader: &r, fb: fb, pf: converter, resume: resume)
                if !dec.deferredLastRect { fb.addDamage(rect) }
            } else {
                // the lock is held for this rect only: the front end reads between rects
                try fb.lock.withWriterLock {
                    try dec.decode(rect: rect, reader: &r, fb: fb, pf: converter, resume: resume)
                    if !dec.deferredLastRect { fb.addDamage(rect) }
                }
            }
            stats.pixels += rect.area
            workDone += rect.area + dec.extraWork
            if settings.jpegQuality != nil { lossyBounds = lossyBounds.map { $0.union(rect) } ?? rect }
            else if let rr = refreshArea { refreshCovered += rect.intersection(rr).area }
            try finishRect()
        case .skipping(let left):
            let n = min(left, r.remaining)
            if n == 0 { return false }
            r.pos += n
            state = left - n == 0 ? .messageType : .skipping(left - n)
        default:
            return try handshakeStep(&r)
        }
        return true
    }

    /// Counts rect work done outside `step`'s decode path (cursor images, resizes).
    func addWork(_ pixels: Int) { workDone += pixels }
}

/// Thrown inside a parse when the engine has asked a question (credentials, trust): the unit
/// is rolled back and parsed again after the answer. Never escapes the engine.
struct AwaitingAnswer: Error {}
