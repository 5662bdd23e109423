/// The client side of RFB as a sans-I/O state machine (TigerVNC's CConnection without sockets):
/// `feed()` bytes from the server, `takeOutput()` bytes to send, `takeEvents()` what happened.
/// It never blocks: a question for the user (credentials, an unverified identity) is an event,
/// and the engine waits in a phase until the answer comes through `provideCredentials` or
/// `answerTrust`. Used from one thread at a time (the session thread or a benchmark); the
/// framebuffer is written inside `feed()` under its own lock, one rect at a time.
///
/// The engine holds the connection's parts and runs the parse loop between them:
/// `ConnectionStreams` (bytes in and out, through the security channel), `Handshake` (version,
/// security, ServerInit), `MessageReader` (server messages, rects to decoders), `MessageWriter`
/// (client messages), `FlowControl` (requests, continuous updates, fences, pixel-format
/// changes), `ExtendedClipboardState`, a `DecodeManager` for worker threads, and what the
/// server told us (`server`). A `RecordingObserver` may watch the stream. The session's input
/// comes in through the methods here, which check the phase and what the server can take.
public final class ClientEngine {
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
    /// The phase the engine was in when it failed (a failure while negotiating security is
    /// the server, or the user, saying no: retrying cannot help).
    public internal(set) var phaseAtFailure: Phase?
    /// What the server has told us: version, name, size, layout, what it takes.
    @exclusivity(unchecked) public internal(set) var server = ServerParams()
    @exclusivity(unchecked) public internal(set) var framebuffer: Framebuffer?
    /// Statistics for benchmarks: updates, rects and real-encoding pixels decoded, bytes
    /// parsed, and the resizes made (a run of resize rects makes one: `applyResize`).
    @exclusivity(unchecked) public internal(set) var stats = Stats()
    public struct Stats: Sendable { public var updates = 0, rects = 0, pixels = 0, bytes = 0, resizes = 0 }
    @exclusivity(unchecked) var events: [EngineEvent] = []

    let streams = ConnectionStreams()
    let writer = MessageWriter()
    let reader: MessageReader
    let flow = FlowControl()
    private(set) lazy var handshake = Handshake(engine: self)
    lazy var clipboard = ExtendedClipboardState(limit: settings.clipboardByteLimit)
    /// Worker threads' jobs (`settings.decodeThreads` above 1).
    let jobs: DecodeManager?
    /// Where the framebuffer's pixels come from.
    private let pixelAllocator: any PixelAllocator
    /// The part of the pixels that every size noted since the last resize made covers
    /// (`noteResize`, `applyResize`); nil when no resize is pending.
    private var resizeKeeps: (w: Int, h: Int)?
    /// A recording watching the stream (`startRecording`).
    private var recording = Recording.off
    private enum Recording { case off, armed(RecordingObserver), on(RecordingObserver) }

    /// Request the next update as soon as one starts arriving (hides a round trip).
    public var pipelineRequests = true
    /// Pixels of rect work after which parsing stops and returns, leaving the rest buffered
    /// (`hasDeferredWork`): the driver can then look at its commands and at `stop()` between
    /// rects, however cheap the bytes were that asked for the work (one 12-byte RRE subrect
    /// can fill 64 Mpixel). A benchmark leaves it unlimited.
    public var workBudgetPixels = Int.max
    /// Rect pixels done in the current parse call, against `workBudgetPixels`.
    @exclusivity(unchecked) private var workDone = 0
    /// Parsing stopped on the work budget with complete units still buffered: call `resume()`.
    public private(set) var hasDeferredWork = false
    /// Any thread may cancel it to end a long decode between its units (`stop()` of a session).
    public let cancellation = DecodeCancellation()
    /// Fuzzing only (see `FixedKeys`): never set by the viewer.
    @_spi(Fuzzing) public var fixedKeys: FixedKeys?

    /// Rects in flight are let go (a job and the manager hold each other until it is retired).
    deinit { jobs?.abandon() }

    /// `probe`, when given, is told of the time spent inside zlib and TurboJPEG (benchmarks).
    /// With `settings.decodeThreads` above 1, rects also decode on `workers` when given (threads
    /// that outlive this engine: a session's, the fuzz harness's), else on threads of its own
    /// (`decodeThreads` - 1 of them, ending with it). `pixels` gives the framebuffer its memory
    /// (the heap by default).
    public init(settings: ClientSettings, probe: LibraryProbe? = nil, workers: DecodeWorkers? = nil,
                pixels: any PixelAllocator = HeapPixels()) {
        self.settings = settings
        pixelAllocator = pixels
        // the session thread decodes too
        jobs = settings.decodeThreads > 1 ? DecodeManager(workers: workers ?? DecodeWorkers(count: settings.decodeThreads - 1)) : nil
        reader = MessageReader(format: settings.pixelFormat, probe: probe, jobs: jobs, cancellation: cancellation)
    }

    // MARK: output and events

    /// Everything to send, encrypted when a security channel runs.
    public func takeOutput() -> [UInt8] {
        flushOutput()
        return streams.takeRaw()
    }
    public var hasOutput: Bool { !writer.output.isEmpty || streams.hasRaw }
    /// Bytes waiting to be sent, not taken (plaintext not yet through a channel comes last).
    public var pendingOutput: [UInt8] { streams.rawOutput + writer.output }

    private func flushOutput() {
        // only a broken TLS state fails here; the next feed reports the connection failed
        if !streams.flush(writer) { failQuietly() }
    }

    /// Before the connection is closed: ends an encrypted session in order (TLS close_notify
    /// into the output), so the server sees a clean end and not a truncation.
    public func closeSecureChannel() { streams.closeChannel(after: writer) }

    /// The server ended the encrypted stream (TLS close_notify): the connection is over even
    /// if the socket stays open, and later bytes are dropped unread.
    public var streamEnded: Bool { streams.peerClosed }
    /// Fuzzing only: a security channel (TLS, AES-EAX) runs, so what follows is ciphertext.
    @_spi(Fuzzing) public var hasSecureChannel: Bool { streams.channel != nil }

    /// Part of a server message is buffered or being decoded: a server that stops sending now
    /// is stalled, not idle.
    public var isMidMessage: Bool {
        guard phase == .normal else { return false }
        return streams.input.count > 0 || !reader.atMessageBoundary
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
        try throwingFail { try streams.ingest(bytes, count: count) }
        try parse()
    }

    public func feed(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { if let b = $0.baseAddress { try feed(b, count: $0.count) } }
    }

    /// Lets a transport receive straight into the engine's buffer: `body` gets room for
    /// `atLeast` bytes and returns how many it wrote.
    public func receive(atLeast n: Int, _ body: (UnsafeMutableRawPointer, Int) throws -> Int) throws -> Int {
        try streams.receive(atLeast: n, body) { raw, got in
            if let raw { try throwingFail { try streams.ingest(raw, count: got) } }
            try parse()
        }
    }

    /// Parses what is buffered after parsing stopped on the work budget (or an answer arrived).
    public func resume() throws { try parse() }

    private func throwingFail(_ body: () throws -> Void) throws {
        do { try body() } catch let e as ProtocolError { throw fail(e) }
    }

    func fail(_ e: ProtocolError) -> ProtocolError {
        if phaseAtFailure == nil && phase != .failed { phaseAtFailure = phase }
        phase = .failed
        return e
    }

    private func failQuietly() { phase = .failed }

    /// Rects on workers may run on past a feed that ends inside an update: they land before the
    /// update's end, and workers add damage only after their pixels.
    private func parse() throws {
        do {
            try parseInput()
            // what the front end reads next has the size the server last asked for
            do { try applyResize() } catch let e as ProtocolError { throw fail(e) }
        } catch {
            // a rect on a worker failed first: its message is the one the sequential path gives
            if let o = jobs, o.hasPending { do { try o.drain() } catch let e as ProtocolError { throw fail(e) } }
            // the size the server set before the failure, as a parse that stopped between (fed
            // in pieces) would have made it
            try? applyResize()
            throw error
        }
        // the input ran out inside an update: its newest rect decodes while the network is read
        jobs?.release()
        try checkWorkers()
    }

    private func parseInput() throws {
        if phase == .failed { throw ProtocolError("connection already failed") }
        hasDeferredWork = false
        workDone = 0
        let input = streams.input
        while true {
            let consumed: Int
            do {
                consumed = try parseLoop()
            } catch let e as ProtocolError {
                throw fail(e)
            }
            if case .on(let observer) = recording, consumed > 0 {
                observer.consumed(UnsafeRawBufferPointer(start: input.storage + input.start, count: consumed), at: stats.bytes)
            }
            stats.bytes += consumed
            input.consume(consumed)
            let more: Bool
            do {
                more = try streams.unitParsed(nextMessage: !hasDeferredWork && handshake.lastQuestion == nil)
            } catch let e as ProtocolError {
                throw fail(e)
            }
            if !more { return }
        }
    }

    /// Parses units until the buffer runs short, a question waits, or the work budget is
    /// spent. Returns bytes consumed.
    private func parseLoop() throws -> Int {
        let input = streams.input
        var r = ByteReader(base: UnsafePointer(input.storage + input.start), count: input.count)
        while true {
            r.commit()
            do {
                let more: Bool
                switch phase {
                case .normal: more = try reader.step(&r, self)
                case .failed: more = false
                default: more = try handshake.step(&r)
                }
                if !more { return r.pos }
                if streams.switching { return r.pos }
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
                reader.rectInterrupted()
                return r.committed
            } catch is AwaitingAnswer {
                // the unit is parsed again from its start once the answer is in
                return r.committed
            }
        }
    }

    /// Counts rect work done (decoded rects, cursor images, resizes).
    @inline(__always) func addWork(_ pixels: Int) { workDone += pixels }

    // MARK: the handshake's end

    /// ServerInit parsed: the framebuffer exists, our format and encodings go out, then the
    /// first full update request.
    func serverInit(width w: Int, height h: Int, format pf: PixelFormat, name: String) {
        server.nativeFormat = pf
        server.name = name
        server.width = w; server.height = h
        framebuffer = Framebuffer(width: w, height: h, allocator: pixelAllocator)
        phase = .normal
        writer.writePixelFormat(settings.pixelFormat)
        writer.writeEncodings(settings.encodingList)
        flow.firstRequest(Rect(x: 0, y: 0, w: w, h: h), writer)
        events.append(.ready(name: name, width: w, height: h))
    }

    /// Security handlers' channel changes (through the handshake).
    func startChannel(_ ch: SecureChannel) { if !streams.startChannel(ch, after: writer) { failQuietly() } }
    func stopChannel() { if !streams.stopChannel(after: writer) { failQuietly() } }

    func checkSize(_ w: Int, _ h: Int, what: String) throws {
        let cap = min(settings.maxFramebufferPixels, Limits.maxFramebufferPixels)
        guard w <= Limits.maxFramebufferDimension, h <= Limits.maxFramebufferDimension, w * h <= cap else {
            let pixels = cap >= 1 << 20 ? "\(cap >> 20) Mpixel" : "\(cap)-pixel"
            throw ProtocolError("\(what) asks for a \(w)x\(h) framebuffer, over the \(Limits.maxFramebufferDimension)x\(Limits.maxFramebufferDimension) and \(pixels) limits")
        }
    }

    // MARK: resizes

    // A resize rect is 12 bytes and a resize allocates and clears up to 256 MiB, so the engine
    // makes only the last of a run: the size is noted in `server` when its rect arrives (its
    // events go out then, in stream order, whatever the feeding) and made just before the next
    // rect that draws, or when parsing stops, so the front end never sees a framebuffer of a
    // size the server has already left. The one made counts as work: a flood of resizes
    // between rects of pixels still lets the session thread look at its commands and `stop()`.

    /// The desktop's size as the server last set it (a resize not yet made included); nil
    /// before ServerInit. What update requests and the continuous-updates region cover.
    public var desktopBounds: Rect? { framebuffer == nil ? nil : Rect(x: 0, y: 0, w: server.width, h: server.height) }

    /// Notes a resize to `width`x`height` (checked against the limits by the caller).
    func noteResize(width: Int, height: Int) {
        server.width = width; server.height = height
        let kept = resizeKeeps ?? (Int.max, Int.max)
        resizeKeeps = (min(kept.w, width), min(kept.h, height))
        flow.desktopResized()
    }

    /// Makes the size the server last set, if the framebuffer is not that size yet (or a run
    /// of resizes went through a smaller one): before a rect draws, and when parsing stops.
    func applyResize() throws {
        guard let fb = framebuffer, let keep = resizeKeeps else { return }
        let w = server.width, h = server.height
        guard w != fb.width || h != fb.height || keep.w < fb.width || keep.h < fb.height else {
            resizeKeeps = nil
            return
        }
        // rects on workers write the old pixels
        if let o = jobs, o.hasPending { try o.drain() }
        // made outside the lock (the workers are drained: nothing else writes the old pixels),
        // swapped in under it: the window never waits for 256 MiB to be cleared and copied.
        // Only what every size of the run covered is kept: the picture is then the same
        // whether the run was made at once or size by size (as the bytes happened to arrive)
        let pixels = fb.resizedPixels(width: w, height: h, keepWidth: keep.w, keepHeight: keep.h)
        resizeKeeps = nil
        fb.lock.withWriterLock { fb.adopt(pixels, width: w, height: h) }
        stats.resizes += 1
        addWork(w * h)
    }

    // MARK: recording

    /// Passes the server's messages to `observer` from the next message boundary (at once
    /// between messages, after ServerInit when still in the handshake). One already set is
    /// replaced.
    public func startRecording(_ observer: RecordingObserver) { recording = .armed(observer) }

    public func stopRecording() { recording = .off }

    /// At a message boundary (`pos` in the current parse's bytes): an armed recording starts.
    @inline(__always) func messageBoundary(at pos: Int) {
        if case .armed(let observer) = recording {
            recording = .on(observer)
            observer.recordingStarted(at: stats.bytes + pos, width: desktopBounds?.w ?? 0, height: desktopBounds?.h ?? 0,
                                      name: server.name, format: reader.converter.format)
        }
    }

    /// A unit the reader finished, from..<to in the current parse's bytes.
    @inline(__always) func report(_ unit: ServerUnit, from: Int, to: Int) {
        if case .on(let observer) = recording { observer.parsed(unit, from: stats.bytes + from, to: stats.bytes + to) }
    }

    // MARK: questions and answers (the handshake's)

    /// The security method in use once chosen (a VeNCrypt subtype once the server took it).
    public var chosenMethod: SecurityMethod? { handshake.chosenMethod }
    /// What the security handshake negotiated, e.g. "VeNCrypt X509Plain, TLSv1.3 TLS_AES_256_GCM_SHA384".
    public var securityDescription: String { handshake.securityDescription }
    /// How the server's identity was checked in this handshake (`channelProtection`).
    public var peerIdentity: PeerIdentityCheck { handshake.peerIdentity }
    /// What the channel a secret would travel over proves, now (`Handshake.channelProtection`).
    public var channelProtection: ChannelProtection { handshake.channelProtection }
    /// The question the engine waits on, if any.
    public var lastQuestion: EngineEvent? { handshake.lastQuestion }

    /// The answer to `.credentialsRequired`; parsing goes on with what is buffered. A user
    /// name the method needs and did not get fails the handshake. The engine keeps `c` only
    /// until it is sent.
    public func provideCredentials(_ c: consuming Credentials) throws {
        guard phase == .awaitingCredentials else { return }
        guard handshake.answer(c) else { throw fail(ProtocolError("the login needs a user name, and none was given")) }
        try parse()
    }

    /// The answer to `.trustRequired`: accepted, or refused with the reason shown.
    public func answerTrust(_ d: TrustDecision) throws {
        guard handshake.answer(d) else { return }
        try parse()
    }

    /// Ends a handshake that waits on a question nobody can answer (the user cancelled, no
    /// terminal to ask on): the connection fails with `reason`.
    public func cancelHandshake(_ reason: String) -> ProtocolError { fail(ProtocolError(reason)) }

    /// The transport reached the end of the stream (the thread that feeds the engine). What the
    /// engine knows of why, as the error that ends the connection; nil when it knows nothing
    /// more than that the connection closed.
    public func connectionClosed() -> ProtocolError? {
        // (after a failure, or once the handshake is over, nothing more is known)
        guard phase != .failed, phase != .normal, let why = handshake.connectionClosed() else { return nil }
        return fail(why)
    }

    // MARK: decoding on workers

    /// Rects decoded on worker threads so far (`decodeThreads` above 1).
    public var rectsOnWorkers: Int { jobs?.started ?? 0 }
    /// Called on a worker thread when a rect it decoded failed, so that whoever waits on the
    /// network can call `checkWorkers()` now. Set before the first feed.
    public var onWorkerFailure: (@Sendable () -> Void)? {
        get { jobs?.onFailure }
        set { jobs?.onFailure = newValue }
    }

    /// A rect on a worker that failed is reported now, with the message the sequential path
    /// gives (the first failure in stream order), instead of at the next barrier; `wait` also
    /// waits for every rect in flight (the end of a stream).
    public func checkWorkers(wait: Bool = false) throws {
        guard let o = jobs, o.hasPending, wait || o.anyFailed.load(ordering: .acquiring) else { return }
        do { try o.drain() } catch let e as ProtocolError { throw fail(e) }
    }

    /// Fuzzing only: every rect a worker can take goes to one however small (an update's last
    /// too), and the jobs in flight may hold `budgetBytes` (default: the viewer's budget). With
    /// `viewerRules` small rects still go, but the viewer's other rules hold: the newest job
    /// waits for the next rect or the input's end, and ZRLE's cheap rects are painted at home.
    @_spi(Fuzzing) public func offloadEveryRect(budgetBytes: Int? = nil, viewerRules: Bool = false) {
        guard let o = jobs else { return }
        let minWork = o.minWork
        o.offloadEverything()
        if viewerRules {
            o.holdsNewest = true
            o.minWork = minWork
        }
        if let budgetBytes { o.budgetBytes = budgetBytes }
    }

    // MARK: what was decoded

    /// The pixel format the server's rects are in now (ours once a change took effect).
    public var pixelFormat: PixelFormat { reader.converter.format }
    /// The real encoding of the last rect decoded (nil before the first).
    public var lastEncoding: Int32? { reader.lastEncoding }
    /// Every encoding a SetEncodings of this connection offered.
    public var offeredEncodings: Set<Int32> { writer.offeredEncodings }
    /// The bounds of the rects decoded while a JPEG quality was asked for (they may be lossy),
    /// since `takeLossyBounds`: what a lossless refresh must cover.
    public var lossyBounds: Rect? { reader.lossy.bounds }
    public func takeLossyBounds() -> Rect? { defer { reader.lossy.bounds = nil }; return reader.lossy.bounds }
    /// A lossless refresh under way: its area, and the pixels of it decoded losslessly since
    /// (a server may send it in pieces, between other updates).
    public var refreshArea: Rect? {
        get { reader.lossy.refresh }
        set { reader.lossy.refresh = newValue }
    }
    public var refreshCovered: Int { reader.lossy.covered }

    // MARK: flow control

    /// Requests, fences and continuous-update messages (FlowControl.swift).
    public var counters: FlowCounters { flow.counters }
    /// Continuous updates are on: the server pushes, no request follows each update.
    public var continuousUpdatesActive: Bool { flow.continuousUpdates }
    /// A pixel format change is on its way (sent or waiting for a safe point).
    public var pixelFormatChangePending: Bool { flow.formatChangePending }

    /// Update request for `rect` (default: the whole framebuffer). A non-incremental request must
    /// be answered, which makes a 1x1 one a cheap liveness probe.
    public func requestUpdate(incremental: Bool = true, rect: Rect? = nil) {
        // the size the server last set, even while its resize is not made yet
        guard let bounds = desktopBounds else { return }
        flow.requestUpdate(incremental: incremental, rect, bounds: bounds, writer)
    }

    /// Asks for a new pixel format, sent where the server's switch is known (`FlowControl`).
    public func changePixelFormat(_ pf: PixelFormat) {
        guard phase == .normal else { return }
        flow.changePixelFormat(pf, self)
    }

    /// Replaces the quality, compression and (when given) encoding preference, and sends the
    /// new SetEncodings at once: rects say their own encoding, so no marker is needed.
    public func changeEncodings(jpegQuality: Int?, compressLevel: Int?, encodings: [Int32]? = nil) {
        settings.jpegQuality = jpegQuality
        settings.compressLevel = compressLevel
        if let encodings { settings.encodings = encodings }
        guard phase == .normal else { return }
        writer.writeEncodings(settings.encodingList)
    }

    /// Sends a round-trip probe: a fence the server answers after what it has queued (the
    /// answer comes as `.fenceReturned` with the same payload, at most 63 bytes after our
    /// tag). False, sending nothing, when the server has not shown it takes fences.
    @discardableResult
    public func sendRoundTripFence(_ payload: [UInt8]) -> Bool {
        guard phase == .normal else { return false }
        return flow.sendRoundTripFence(payload, self)
    }

    // MARK: input and requests

    /// `buttons`: bit n is button n+1; buttons 8/9 go out only as the server can take them.
    public func sendPointer(x: Int, y: Int, buttons: UInt16) {
        guard phase == .normal else { return }
        let extended = server.supportsExtendedMouseButtons
        // button 9 has no classic bit: without the extension it is not sent
        writer.writePointer(x: x, y: y, buttons: extended ? buttons : buttons & 0xff, extended: extended)
    }

    /// QEMU's relative pointer mode: motion as a delta from 0x7FFF on each axis (what QEMU
    /// reads back when the pointer-motion-change pseudo-encoding is in use and the guest's
    /// mouse is relative).
    public func sendRelativePointer(dx: Int, dy: Int, buttons: UInt16) {
        let x = max(0, min(0xffff, 0x7fff + dx)), y = max(0, min(0xffff, 0x7fff + dy))
        sendPointer(x: x, y: y, buttons: buttons)
    }

    /// A key press or release. `xtKeycode` (XT scancode, 0xE0xx for extended keys) goes along when
    /// the server takes QEMU Extended Key Events; otherwise only the keysym is sent.
    public func sendKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32? = nil) {
        guard phase == .normal else { return }
        writer.writeKey(keysym, down: down, xtKeycode: server.supportsQEMUKeyEvents ? xtKeycode : nil)
    }

    /// SetDesktopSize: asks the server for a `width`x`height` framebuffer with these screens
    /// (default: one screen covering it, keeping the current first screen's id). The answer
    /// arrives as `.desktopSizeRequestResult`. Throws, sending nothing, when the server has not
    /// shown support (no ExtendedDesktopSize yet) or the layout is invalid.
    public func requestDesktopSize(width: Int, height: Int, screens: [Screen]? = nil) throws {
        guard phase == .normal else { throw DesktopSizeRequestError("the server does not support changing its desktop size (it has sent no ExtendedDesktopSize)") }
        let list = try ClientEngine.desktopSizeScreens(width: width, height: height, screens: screens,
                                                       supported: server.supportsSetDesktopSize, current: server.screenLayout)
        writer.writeDesktopSize(width: width, height: height, screens: list)
    }

    /// The screens a SetDesktopSize for `width`x`height` carries (default: one screen covering
    /// it, keeping the current first screen's id), or why it cannot be asked: the server has
    /// not shown support (no ExtendedDesktopSize yet) or the layout is invalid. Any thread.
    public static func desktopSizeScreens(width: Int, height: Int, screens: [Screen]?,
                                          supported: Bool, current: ScreenLayout?) throws -> [Screen] {
        guard supported else {
            throw DesktopSizeRequestError("the server does not support changing its desktop size (it has sent no ExtendedDesktopSize)")
        }
        guard width > 0, height > 0, width <= min(Limits.maxFramebufferDimension, 65535),
              height <= min(Limits.maxFramebufferDimension, 65535), width * height <= Limits.maxFramebufferPixels else {
            throw DesktopSizeRequestError("cannot request a \(width)x\(height) desktop: sizes go from 1 to \(Limits.maxFramebufferDimension) and up to \(Limits.maxFramebufferPixels / (1024 * 1024)) Mpixel")
        }
        let list = screens ?? [Screen(id: current?.screens.first?.id ?? 0, x: 0, y: 0, width: width, height: height,
                                      flags: current?.screens.first?.flags ?? 0)]
        if let problem = ScreenLayout(width: width, height: height, screens: list).problem() {
            throw DesktopSizeRequestError("the requested layout \(problem)")
        }
        return list
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
        let extended = server.supportsExtendedClipboard
        // LibVNCServer (x11vnc 0.9.16) announces the Extended Clipboard without Notify but
        // drops provided text unless the application hooked setXCutTextUTF8, which x11vnc does
        // not: to such a server the classic message goes first, then the Provide, so a server
        // that takes both ends with the UTF-8 text.
        if extended && clipboard.serverActions.contains(.notify) {
            clipboard.localChanged(c, out: &writer.output, events: &events)
            return 0
        }
        guard c.utf8Count <= clipboard.limit else {
            if extended { clipboard.localChanged(c, out: &writer.output, events: &events) }
            else { events.append(.cutTextNotSent(length: c.utf8Count, limit: clipboard.limit)) }
            return 0
        }
        writer.writeCutText(latin1: c.latin1)
        // over the size the server takes unsolicited the classic message alone carries it
        if extended && c.wireCount <= clipboard.serverTextLimit {
            clipboard.localChanged(c, out: &writer.output, events: &events)
        }
        return c.dropped
    }

    /// Asks the server to shut down, reboot or reset the machine (xvp version 1).
    public func sendPowerAction(_ a: XvpAction) {
        guard phase == .normal else { return }
        writer.writePowerAction(a)
    }

    /// Asks the server (QEMU) to stream its audio in `format`, or to stop.
    public func setAudio(enabled: Bool, format: AudioFormat = .s16Stereo44k) {
        guard phase == .normal else { return }
        writer.writeAudio(enabled: enabled, format: format)
    }
}
