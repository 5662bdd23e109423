/// Fence flags (rfbproto "Fence").
public struct FenceFlags: OptionSet, Sendable, Equatable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Everything before the fence has taken effect before the answer goes out.
    public static let blockBefore = FenceFlags(rawValue: 1)
    /// Nothing after the fence is processed until the answer has gone out.
    public static let blockAfter = FenceFlags(rawValue: 2)
    /// The message after the fence is processed before the answer goes out.
    public static let syncNext = FenceFlags(rawValue: 4)
    /// A question: the recipient answers with the same payload.
    public static let request = FenceFlags(rawValue: 0x8000_0000)
}

/// ContinuousUpdates and Fence state (session thread, with the engine).
struct FlowState {
    var serverHasFence = false
    var serverHasContinuousUpdates = false
    var continuousUpdates = false
    var firstUpdateDone = false
    /// The framebuffer changed size while continuous updates ran: the region follows at the
    /// end of the update.
    var regionStale = false
    /// A pixel format wanted and not yet sent (waiting for a safe point).
    var wantedFormat: PixelFormat?
    /// A pixel format sent, in force once its marker arrives.
    var pendingFormat: PixelFormat?
    var marker = Marker.none
    enum Marker { case none, endOfContinuousUpdates, fence }
    /// Request path without fences: pipelining was skipped at this update's start, so when it
    /// ends no request is outstanding and a new format applies to everything after. (A
    /// liveness probe sent in between could still be answered in the old format: rare.)
    var drainedAtHeader = false
    /// A BlockAfter fence was answered: parsing pauses until the answer is taken.
    var pauseParsing = false
}

/// What the engine did for flow control, for logs and tests.
public struct FlowCounters: Sendable, Equatable {
    /// FramebufferUpdateRequests sent (any kind).
    public var requests = 0
    /// Incremental requests sent after continuous updates were enabled.
    public var requestsWhileContinuous = 0
    public var fencesAnswered = 0
    public var fencesSent = 0
    public var endOfContinuousUpdates = 0
    public var pixelFormatChanges = 0
    public init() {}
}

extension ClientEngine {
    /// Payload tags of our own fences: a round-trip probe, a pixel-format marker.
    static let rttFenceTag: UInt8 = 0x52, formatFenceTag: UInt8 = 0x50
    /// The protocol's cap on a fence payload.
    static let maxFencePayload = 64

    /// Continuous updates are on: the server pushes, no request follows each update.
    public var continuousUpdatesActive: Bool { flow.continuousUpdates }
    /// The server answered or sent a fence.
    public var serverSupportsFence: Bool { flow.serverHasFence }
    /// The server announced ContinuousUpdates (its first EndOfContinuousUpdates).
    public var serverSupportsContinuousUpdates: Bool { flow.serverHasContinuousUpdates }
    /// A pixel format change is on its way (sent or waiting for a safe point).
    public var pixelFormatChangePending: Bool { flow.wantedFormat != nil || flow.pendingFormat != nil }

    /// Server message 150: no payload. The first announces support; one after we disabled
    /// continuous updates marks where a new pixel format starts.
    func parseEndOfContinuousUpdates() {
        counters.endOfContinuousUpdates += 1
        let first = !flow.serverHasContinuousUpdates
        flow.serverHasContinuousUpdates = true
        if flow.marker == .endOfContinuousUpdates, let pf = flow.pendingFormat {
            applyFormat(pf)   // continuous updates were enabled again right after the format
            return
        }
        if first {
            if flow.firstUpdateDone && !flow.continuousUpdates { enableContinuousUpdates() }
            return
        }
        if flow.continuousUpdates {
            // the server stopped pushing on its own: back to requests
            flow.continuousUpdates = false
            events.append(.continuousUpdates(enabled: false))
            requestUpdate()
        }
    }

    /// Server message 248: 3 padding bytes, flags, length, payload (at most 64 bytes).
    func parseFence(_ r: inout ByteReader) throws {
        try r.require(8)
        let n = Int(r.base[r.pos + 7])
        guard n <= ClientEngine.maxFencePayload else {
            throw ProtocolError("Fence with a \(n)-byte payload; the protocol allows at most \(ClientEngine.maxFencePayload)")
        }
        try r.require(8 + n)
        r.pos += 3
        let flags = FenceFlags(rawValue: try r.u32())
        r.pos += 1
        let payload = n > 0 ? Array(UnsafeBufferPointer(start: try r.bytes(n), count: n)) : []
        flow.serverHasFence = true
        if flags.contains(.request) {
            // Parsing is in order, so BlockBefore holds; BlockAfter pauses parsing until the
            // answer is taken; SyncNext (answer after the next message) is not offered, as
            // the protocol lets a recipient clear what it does not do. Unknown bits: cleared.
            let answer = flags.intersection([.blockBefore, .blockAfter])
            output += ClientMessage.fence(flags: answer.rawValue, payload: payload)
            counters.fencesAnswered += 1
            if answer.contains(.blockAfter) { flow.pauseParsing = true }
            return
        }
        guard let tag = payload.first else { return }
        if tag == ClientEngine.formatFenceTag, flow.marker == .fence, let pf = flow.pendingFormat {
            applyFormat(pf)
        } else if tag == ClientEngine.rttFenceTag {
            events.append(.fenceReturned(payload))
        }
    }

    /// Sends a round-trip probe: a fence the server answers after what it has queued (the
    /// answer comes as `.fenceReturned` with the same payload, at most 63 bytes after our
    /// tag). False, sending nothing, when the server has not shown it takes fences.
    @discardableResult
    public func sendRoundTripFence(_ payload: [UInt8]) -> Bool {
        guard phase == .normal, flow.serverHasFence, payload.count < ClientEngine.maxFencePayload else { return false }
        output += ClientMessage.fence(flags: FenceFlags([.request, .blockBefore]).rawValue,
                                      payload: [ClientEngine.rttFenceTag] + payload)
        counters.fencesSent += 1
        return true
    }

    func enableContinuousUpdates() {
        guard let bounds = desktopBounds, settings.wantContinuousUpdates else { return }
        output += ClientMessage.enableContinuousUpdates(true, bounds)
        if !flow.continuousUpdates { events.append(.continuousUpdates(enabled: true)) }
        flow.continuousUpdates = true
        flow.regionStale = false
    }

    /// At the end of every update: continuous updates start after the first one (as TigerVNC's
    /// CConnection), their region follows a resize, and a format change waits for this point.
    func flowAtUpdateEnd() {
        if !flow.firstUpdateDone {
            flow.firstUpdateDone = true
            if flow.serverHasContinuousUpdates && !flow.continuousUpdates && flow.pendingFormat == nil { enableContinuousUpdates() }
        }
        if flow.continuousUpdates && flow.regionStale { enableContinuousUpdates() }
        let drained = flow.drainedAtHeader || !pipelineRequests
        flow.drainedAtHeader = false
        if flow.wantedFormat != nil { startFormatChange(drained: drained) }
    }

    /// Whether the update starting now should request the next one (the request path).
    func shouldPipeline() -> Bool {
        guard !flow.continuousUpdates else { return false }
        // a format waits for the end of this update with nothing outstanding
        if flow.wantedFormat != nil && !flow.serverHasFence { flow.drainedAtHeader = true; return false }
        return true
    }

    /// Asks for a new pixel format. It goes out at a point where the server's switch is known:
    /// with continuous updates, disable / SetPixelFormat / enable and the server's
    /// EndOfContinuousUpdates; with fences alone, a SyncNext fence answered after the
    /// SetPixelFormat; otherwise at the end of an update with no request outstanding. Rects
    /// before that point are decoded in the old format.
    public func changePixelFormat(_ pf: PixelFormat) {
        guard phase == .normal else { return }
        if flow.wantedFormat == nil && pf == (flow.pendingFormat ?? converter.format) { return }
        flow.wantedFormat = pf
        if flow.continuousUpdates || flow.serverHasFence { startFormatChange(drained: false) }
    }

    /// `drained`: an update just ended with no request outstanding.
    private func startFormatChange(drained: Bool) {
        guard flow.pendingFormat == nil, let pf = flow.wantedFormat else { return }
        if flow.continuousUpdates, let bounds = desktopBounds {
            output += ClientMessage.enableContinuousUpdates(false, bounds)
            output += ClientMessage.setPixelFormat(pf)
            output += ClientMessage.enableContinuousUpdates(true, bounds)
            flow.marker = .endOfContinuousUpdates
        } else if flow.serverHasFence {
            output += ClientMessage.fence(flags: FenceFlags([.request, .blockBefore, .syncNext]).rawValue,
                                          payload: [ClientEngine.formatFenceTag])
            counters.fencesSent += 1
            output += ClientMessage.setPixelFormat(pf)
            flow.marker = .fence
        } else if drained {
            // nothing outstanding: everything the server sends from here is in the new format
            flow.wantedFormat = nil
            output += ClientMessage.setPixelFormat(pf)
            applyFormat(pf)
            if pipelineRequests { requestUpdate() }   // endUpdate requests otherwise
            return
        } else {
            return   // the next update drains the pipeline first (shouldPipeline)
        }
        flow.wantedFormat = nil
        flow.pendingFormat = pf
    }

    private func applyFormat(_ pf: PixelFormat) {
        flow.pendingFormat = nil
        flow.marker = .none
        converter = PixelConverter(format: pf)
        counters.pixelFormatChanges += 1
        events.append(.pixelFormatChanged(pf))
        if flow.wantedFormat != nil && (flow.continuousUpdates || flow.serverHasFence) { startFormatChange(drained: false) }
    }

    /// Replaces the quality, compression and (when given) encoding preference, and sends the
    /// new SetEncodings at once: rects say their own encoding, so no marker is needed.
    public func changeEncodings(jpegQuality: Int?, compressLevel: Int?, encodings: [Int32]? = nil) {
        settings.jpegQuality = jpegQuality
        settings.compressLevel = compressLevel
        if let encodings { settings.encodings = encodings }
        guard phase == .normal else { return }
        sendEncodings()
    }
}
