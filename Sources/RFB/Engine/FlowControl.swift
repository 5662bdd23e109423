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

/// How updates flow (TigerVNC's CConnection does the same): requested one by one, or pushed
/// once the server has ContinuousUpdates; fences answered and sent; a pixel-format change sent
/// at a point where the server's switch is known. Session thread, with the engine, whose
/// writer it writes with and whose server parameters say what the server can do.
final class FlowControl {
    /// Payload tags of our own fences: a round-trip probe, a pixel-format marker.
    static let rttFenceTag: UInt8 = 0x52, formatFenceTag: UInt8 = 0x50
    /// The protocol's cap on a fence payload.
    static let maxFencePayload = 64

    private(set) var counters = FlowCounters()
    /// Continuous updates are on: the server pushes, no request follows each update.
    private(set) var continuousUpdates = false
    private var firstUpdateDone = false
    /// The framebuffer changed size while continuous updates ran: the region follows at the
    /// end of the update.
    private var regionStale = false
    /// A pixel format wanted and not yet sent (waiting for a safe point).
    private var wantedFormat: PixelFormat?
    /// A pixel format sent, in force once its marker arrives.
    private var pendingFormat: PixelFormat?
    private var marker = Marker.none
    private enum Marker { case none, endOfContinuousUpdates, fence }
    /// Request path without fences: pipelining was skipped at this update's start, so when it
    /// ends no request is outstanding and a new format applies to everything after. (A
    /// liveness probe sent in between could still be answered in the old format: rare.)
    private var drainedAtHeader = false
    /// A BlockAfter fence was answered: parsing pauses until the answer is taken.
    @exclusivity(unchecked) var pauseParsing = false

    /// A pixel format change is on its way (sent or waiting for a safe point).
    var formatChangePending: Bool { wantedFormat != nil || pendingFormat != nil }

    /// FramebufferUpdateRequest for `rect` within `bounds` (the size the server last set).
    func requestUpdate(incremental: Bool, _ rect: Rect?, bounds: Rect, _ w: MessageWriter) {
        counters.requests += 1
        if continuousUpdates && incremental { counters.requestsWhileContinuous += 1 }
        w.writeUpdateRequest(incremental: incremental, (rect ?? bounds).intersection(bounds))
    }

    /// The first full update's request, right after ServerInit.
    func firstRequest(_ bounds: Rect, _ w: MessageWriter) {
        w.writeUpdateRequest(incremental: false, bounds)
        counters.requests += 1
    }

    /// Server message 150: no payload. The first announces support; one after we disabled
    /// continuous updates marks where a new pixel format starts.
    func endOfContinuousUpdates(_ c: ClientEngine) {
        counters.endOfContinuousUpdates += 1
        let first = !c.server.supportsContinuousUpdates
        c.server.supportsContinuousUpdates = true
        if marker == .endOfContinuousUpdates, let pf = pendingFormat {
            apply(pf, c)   // continuous updates were enabled again right after the format
            return
        }
        if first {
            if firstUpdateDone && !continuousUpdates { enableContinuousUpdates(c) }
            return
        }
        if continuousUpdates {
            // the server stopped pushing on its own: back to requests
            continuousUpdates = false
            c.events.append(.continuousUpdates(enabled: false))
            c.requestUpdate()
        }
    }

    /// Server message 248: 3 padding bytes, flags, length, payload (at most 64 bytes).
    func fence(_ r: inout ByteReader, _ c: ClientEngine) throws {
        try r.require(8)
        let n = Int(r.base[r.pos + 7])
        guard n <= FlowControl.maxFencePayload else {
            throw ProtocolError("Fence with a \(n)-byte payload; the protocol allows at most \(FlowControl.maxFencePayload)")
        }
        try r.require(8 + n)
        r.pos += 3
        let flags = FenceFlags(rawValue: try r.u32())
        r.pos += 1
        let payload = n > 0 ? Array(UnsafeBufferPointer(start: try r.bytes(n), count: n)) : []
        c.server.supportsFence = true
        if flags.contains(.request) {
            // Parsing is in order, so BlockBefore holds; BlockAfter pauses parsing until the
            // answer is taken; SyncNext (answer after the next message) is not offered, as
            // the protocol lets a recipient clear what it does not do. Unknown bits: cleared.
            let answer = flags.intersection([.blockBefore, .blockAfter])
            c.writer.writeFence(answer, payload: payload)
            counters.fencesAnswered += 1
            if answer.contains(.blockAfter) { pauseParsing = true }
            return
        }
        guard let tag = payload.first else { return }
        if tag == FlowControl.formatFenceTag, marker == .fence, let pf = pendingFormat {
            apply(pf, c)
        } else if tag == FlowControl.rttFenceTag {
            c.events.append(.fenceReturned(payload))
        }
    }

    /// A round-trip probe: a fence the server answers after what it has queued. False, sending
    /// nothing, when the server has not shown it takes fences or the payload is too long.
    func sendRoundTripFence(_ payload: [UInt8], _ c: ClientEngine) -> Bool {
        guard c.server.supportsFence, payload.count < FlowControl.maxFencePayload else { return false }
        c.writer.writeFence([.request, .blockBefore], payload: [FlowControl.rttFenceTag] + payload)
        counters.fencesSent += 1
        return true
    }

    private func enableContinuousUpdates(_ c: ClientEngine) {
        guard let bounds = c.desktopBounds, c.settings.wantContinuousUpdates else { return }
        c.writer.writeEnableContinuousUpdates(true, bounds)
        if !continuousUpdates { c.events.append(.continuousUpdates(enabled: true)) }
        continuousUpdates = true
        regionStale = false
    }

    /// The desktop changed size: with continuous updates on, their region follows at the end
    /// of the update.
    func desktopResized() { regionStale = continuousUpdates }

    /// At the end of every update: continuous updates start after the first one (as TigerVNC's
    /// CConnection), their region follows a resize, and a format change waits for this point.
    func updateEnded(_ c: ClientEngine) {
        if !firstUpdateDone {
            firstUpdateDone = true
            if c.server.supportsContinuousUpdates && !continuousUpdates && pendingFormat == nil { enableContinuousUpdates(c) }
        }
        if continuousUpdates && regionStale { enableContinuousUpdates(c) }
        let drained = drainedAtHeader || !c.pipelineRequests
        drainedAtHeader = false
        if wantedFormat != nil { startFormatChange(drained: drained, c) }
        if !c.pipelineRequests && !continuousUpdates { c.requestUpdate() }
    }

    /// Whether the update starting now should request the next one (the request path).
    func shouldPipeline(_ c: ClientEngine) -> Bool {
        guard !continuousUpdates else { return false }
        // a format waits for the end of this update with nothing outstanding
        if wantedFormat != nil && !c.server.supportsFence { drainedAtHeader = true; return false }
        return true
    }

    /// Asks for a new pixel format. It goes out at a point where the server's switch is known:
    /// with continuous updates, disable / SetPixelFormat / enable and the server's
    /// EndOfContinuousUpdates; with fences alone, a SyncNext fence answered after the
    /// SetPixelFormat; otherwise at the end of an update with no request outstanding. Rects
    /// before that point are decoded in the old format.
    func changePixelFormat(_ pf: PixelFormat, _ c: ClientEngine) {
        if wantedFormat == nil && pf == (pendingFormat ?? c.reader.converter.format) { return }
        wantedFormat = pf
        if continuousUpdates || c.server.supportsFence { startFormatChange(drained: false, c) }
    }

    /// `drained`: an update just ended with no request outstanding.
    private func startFormatChange(drained: Bool, _ c: ClientEngine) {
        guard pendingFormat == nil, let pf = wantedFormat else { return }
        let w = c.writer
        if continuousUpdates, let bounds = c.desktopBounds {
            w.writeEnableContinuousUpdates(false, bounds)
            w.writePixelFormat(pf)
            w.writeEnableContinuousUpdates(true, bounds)
            marker = .endOfContinuousUpdates
        } else if c.server.supportsFence {
            w.writeFence([.request, .blockBefore, .syncNext], payload: [FlowControl.formatFenceTag])
            counters.fencesSent += 1
            w.writePixelFormat(pf)
            marker = .fence
        } else if drained {
            // nothing outstanding: everything the server sends from here is in the new format
            wantedFormat = nil
            w.writePixelFormat(pf)
            apply(pf, c)
            if c.pipelineRequests { c.requestUpdate() }   // updateEnded requests otherwise
            return
        } else {
            return   // the next update drains the pipeline first (shouldPipeline)
        }
        wantedFormat = nil
        pendingFormat = pf
    }

    private func apply(_ pf: PixelFormat, _ c: ClientEngine) {
        pendingFormat = nil
        marker = .none
        c.reader.converter = PixelConverter(format: pf)
        counters.pixelFormatChanges += 1
        c.events.append(.pixelFormatChanged(pf))
        if wantedFormat != nil && (continuousUpdates || c.server.supportsFence) { startFormatChange(drained: false, c) }
    }
}
