import Foundation
import RFB

/// What the link looks like now, for the connection-info panel and `-v`.
public struct LinkSummary: Equatable, Sendable {
    /// The real encoding of the last rect, e.g. "tight".
    public var encoding = ""
    /// What adaptive quality (or the user) asks for, e.g. "JPEG quality 8, compression 2".
    public var quality = ""
    public var adaptive = false
    /// Seconds; nil until measured.
    public var roundTrip: Double?
    /// Bytes/s received over the last second, and the link's rate while updates arrived.
    public var throughput = 0.0
    public var linkRate: Double?
    public var updatesPerSecond = 0.0
    /// Seconds of decoding per update; nil without updates.
    public var decodePerUpdate: Double?
    public var continuousUpdates = false
    public var fences = false
    public var counters = FlowCounters()
    public init() {}

    /// One line, e.g. "tight, JPEG quality 8 (adaptive), RTT 0.4 ms, 3.1 MB/s (link 40 MB/s), 30 updates/s, decode 1.2 ms".
    public var line: String {
        var parts = [encoding.isEmpty ? "no update yet" : encoding]
        parts.append(quality + (adaptive ? " (adaptive)" : ""))
        parts.append(roundTrip.map { "RTT " + LinkSummary.ms($0) } ?? "RTT not measured")
        parts.append(LinkSummary.rate(throughput) + (linkRate.map { " (link \(LinkSummary.rate($0)))" } ?? ""))
        parts.append(Figures.fixed(updatesPerSecond, 0) + " updates/s")
        parts.append("decode " + (decodePerUpdate.map { LinkSummary.ms($0) } ?? "-"))
        parts.append(continuousUpdates ? "continuous updates" : "requests")
        return parts.joined(separator: ", ")
    }
    public static func ms(_ s: Double) -> String { Figures.fixed(s * 1000, s < 0.01 ? 2 : 0) + " ms" }
    /// Bits per second, as links are sold.
    public static func rate(_ bytesPerSecond: Double) -> String {
        let b = bytesPerSecond * 8
        if b >= 1e9 { return Figures.fixed(b / 1e9, 1) + " Gbit/s" }
        if b >= 1e6 { return Figures.fixed(b / 1e6, 1) + " Mbit/s" }
        return Figures.fixed(b / 1e3, 0) + " kbit/s"
    }
}

/// The session's side of measurement and adaptive quality (session thread).
extension Session {
    /// Per-connection measuring state, kept in `Connection`.
    struct LinkState {
        var monitor = LinkMonitor()
        var adaptive: AdaptiveQuality?
        var decodeSinceUpdate = 0.0
        var lastReceiveStart: Double?
        var nextProbe = 0.0
        var requestProbeOut = false
        var lastSummary = 0.0
        var lastLog = 0.0
        var logged: LinkSummary?
        var lastUpdateEnd = 0.0
        /// A lossless refresh was asked for (when): the lossy quality comes back once it is in.
        var refreshing: Double?
    }

    /// The screen has been still this long after lossy updates: the lossy area is asked for
    /// again without JPEG (servers other than Xvnc never refresh it losslessly themselves).
    static let losslessRefreshAfter = 0.3
    /// A refresh not complete after this long is given up (the lossy quality comes back).
    static let refreshTimeout = 10.0

    /// Seconds between round-trip probes.
    static let probeInterval = 1.0

    /// Time spent in the engine (decoding mostly) and the link's rate while an update arrives.
    func measureReceive(_ c: inout Connection, wasMid: Bool, start: Double, end: Double, bytes: Int) {
        // mid-update, the time since the last read began is what the link took for these bytes
        let busy = wasMid ? (c.link.lastReceiveStart.map { start - $0 } ?? 0) : 0
        c.link.lastReceiveStart = start
        c.link.decodeSinceUpdate += end - start
        if bytes > 0 { c.link.monitor.received(bytes, at: end, busySeconds: busy) }
    }

    /// Events the link cares about (before they go to the front end).
    func observeLink(_ c: inout Connection, _ events: [EngineEvent], now: Double) {
        for ev in events {
            switch ev {
            case .updateBegan where c.link.requestProbeOut:
                c.link.requestProbeOut = false
                c.link.monitor.probeReturned(nil, at: now)
            case .updateEnded:
                c.link.monitor.updateEnded(at: now, decodeSeconds: c.link.decodeSinceUpdate)
                c.link.decodeSinceUpdate = 0
                c.link.lastUpdateEnd = now
                if let since = c.link.refreshing, let a = c.link.adaptive, let area = c.engine.refreshArea,
                   c.engine.refreshCovered >= area.area || now - since > Session.refreshTimeout {
                    // the whole area has come losslessly (or the server gave up on it): lossy again
                    c.link.refreshing = nil
                    c.engine.refreshArea = nil
                    c.engine.changeEncodings(jpegQuality: a.choice.jpegQuality, compressLevel: a.choice.compressLevel)
                }
            case .fenceReturned(let p) where p.count == 5:
                c.link.monitor.probeReturned(UInt32(p[1]) << 24 | UInt32(p[2]) << 16 | UInt32(p[3]) << 8 | UInt32(p[4]), at: now)
            case .continuousUpdates(let on):
                log(on ? "continuous updates on: the server pushes, no request per update" : "continuous updates ended by the server: back to requests")
            case .pixelFormatChanged(let pf):
                log("pixel format now \(pf)")
            default: break
            }
        }
    }

    /// Round-trip probes, adaptive quality and the summary (each loop turn once ready).
    func tickLink(_ c: inout Connection, now: Double) {
        let e = c.engine
        guard c.ready, e.phase == .normal else { return }
        if now >= c.link.nextProbe {
            c.link.nextProbe = now + Session.probeInterval
            if e.server.supportsFence {
                if let id = c.link.monitor.startProbe(at: now) {
                    e.sendRoundTripFence([UInt8(id >> 24), UInt8(id >> 16 & 0xff), UInt8(id >> 8 & 0xff), UInt8(id & 0xff)])
                }
            } else if probeWithRequests && !e.isMidMessage && !c.link.requestProbeOut, c.link.monitor.startProbe(at: now) != nil {
                // without fences: a 1x1 full request, which the server answers at once
                c.link.requestProbeOut = true
                e.requestUpdate(incremental: false, rect: Rect(x: 0, y: 0, w: 1, h: 1))
            }
        }
        if var a = c.link.adaptive {
            if let choice = a.observe(bytesPerSecond: c.link.monitor.capacity(at: now), at: now) {
                e.changeEncodings(jpegQuality: choice.jpegQuality, compressLevel: choice.compressLevel)
                // an FBS recording carries one pixel format: colour depth waits while recording
                if !a.pins.colour && c.recorder == nil {
                    e.changePixelFormat(choice.lowColour ? .bgr233 : settings.pixelFormat)
                }
                log("adaptive quality: \(choice) (link \(c.link.monitor.capacity(at: now).map { LinkSummary.rate($0) } ?? "?"))")
            }
            c.link.adaptive = a
            if c.link.refreshing == nil, a.choice.jpegQuality != nil, !e.isMidMessage,
               now - c.link.lastUpdateEnd >= Session.losslessRefreshAfter, let r = e.takeLossyBounds() {
                e.changeEncodings(jpegQuality: nil, compressLevel: a.choice.compressLevel)
                e.requestUpdate(incremental: false, rect: r)
                c.link.refreshing = now
                e.refreshArea = r
                log("lossless refresh of \(r.w)x\(r.h) at \(r.x),\(r.y)")
            }
        }
        guard now - c.link.lastSummary >= 0.25 else { return }
        c.link.lastSummary = now
        let s = summary(c, now: now)
        lock.withLock { published = SessionSnapshot(server: published.server, link: s) }
        // -v: a line when something changed noticeably, at most every 2 s
        if now - c.link.lastLog >= 2, c.link.logged.map({ Session.differs($0, s) }) ?? true {
            c.link.lastLog = now
            c.link.logged = s
            log("link: \(s.line)")
        }
    }

    func summary(_ c: Connection, now: Double) -> LinkSummary {
        let e = c.engine, m = c.link.monitor
        var s = LinkSummary()
        s.encoding = e.lastEncoding.map { Encoding.name($0) } ?? ""
        let q = e.settings.jpegQuality.map { "JPEG quality \($0)" } ?? "lossless"
        s.quality = q + (e.settings.compressLevel.map { ", compression \($0)" } ?? "")
            + (e.pixelFormat.bitsPerPixel < 16 ? ", 8-bit colour" : "")
        s.adaptive = c.link.adaptive != nil
        s.roundTrip = m.roundTrip
        s.throughput = m.throughput(at: now)
        s.linkRate = m.capacity(at: now)
        s.updatesPerSecond = m.updatesPerSecond(at: now)
        s.decodePerUpdate = m.decodePerUpdate(at: now)
        s.continuousUpdates = e.continuousUpdatesActive
        s.fences = e.server.supportsFence
        s.counters = e.counters
        return s
    }

    /// Whether `b` is worth a new log line after `a` (a setting changed, or a figure by half).
    static func differs(_ a: LinkSummary, _ b: LinkSummary) -> Bool {
        func far(_ x: Double?, _ y: Double?) -> Bool {
            guard let x, let y else { return (x == nil) != (y == nil) }
            return abs(x - y) > 0.5 * max(abs(x), abs(y)) && max(abs(x), abs(y)) > 1e-4
        }
        return a.encoding != b.encoding || a.quality != b.quality || a.continuousUpdates != b.continuousUpdates
            || far(a.roundTrip, b.roundTrip) || far(a.throughput, b.throughput) || far(a.updatesPerSecond, b.updatesPerSecond)
    }

    /// `snapshot.link`: the link as last measured (thin accessor until the window reads `snapshot`).
    public var link: LinkSummary { snapshot.link }
}
