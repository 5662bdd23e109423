import RFB

/// The events waiting for the front end, bounded in count and in bytes whatever the server
/// sends and however long the front end takes to read them (a window busy drawing): an event
/// that says what something is now (the cursor, the clipboard text, the screen layout, ...)
/// replaces the one of its kind still waiting, sound keeps only its newest bytes, and past
/// the count the oldest notices go, update markers first. Guarded by the session's lock.
struct EventQueue {
    /// Events waiting at most: far more than a front end taking them each frame ever sees.
    static let maxEvents = 4096
    /// Sound waiting at most: 6 s of the 44.1 kHz 16-bit stereo `setAudio` asks for; sound
    /// older than that would only play late, so the oldest goes.
    static let maxAudioBytes = 1 << 20

    private(set) var events: [EngineEvent] = []
    /// Bytes of `.audioData` in `events`.
    private(set) var audioBytes = 0

    var count: Int { events.count }

    /// Everything waiting, in order; the queue is left empty.
    mutating func take() -> [EngineEvent] {
        audioBytes = 0
        defer { events.removeAll() }
        return events
    }

    mutating func append(_ new: [EngineEvent]) {
        guard !new.isEmpty else { return }
        // of each kind that replaces, only the newest stays: in what came, then among what waits
        var seen = Set<Kind>()
        var kept: [EngineEvent] = []
        kept.reserveCapacity(new.count)
        for ev in new.reversed() {
            if let k = Kind(ev) { if !seen.insert(k).inserted { continue } }
            kept.append(ev)
        }
        kept.reverse()
        if !seen.isEmpty { events.removeAll { Kind($0).map(seen.contains) ?? false } }
        for case .audioData(let d) in kept { audioBytes += d.count }
        events += kept
        if audioBytes > EventQueue.maxAudioBytes { dropOldestAudio() }
        if events.count > EventQueue.maxEvents { dropOldestNotices() }
    }

    private mutating func dropOldestAudio() {
        var excess = audioBytes - EventQueue.maxAudioBytes
        var out: [EngineEvent] = []
        out.reserveCapacity(events.count)
        for ev in events {
            if excess > 0, case .audioData(let d) = ev {
                excess -= d.count
                audioBytes -= d.count
                continue
            }
            out.append(ev)
        }
        events = out
    }

    /// Update markers first (nothing counts them once this far behind), then the oldest of
    /// anything but a question or the connection's start, down to `maxEvents`.
    private mutating func dropOldestNotices() {
        events.removeAll { if case .updateBegan = $0 { return true }; if case .updateEnded = $0 { return true }; return false }
        var excess = events.count - EventQueue.maxEvents
        guard excess > 0 else { return }
        var out: [EngineEvent] = []
        out.reserveCapacity(EventQueue.maxEvents)
        for ev in events {
            if excess > 0, !EventQueue.kept(ev) {
                excess -= 1
                if case .audioData(let d) = ev { audioBytes -= d.count }
                continue
            }
            out.append(ev)
        }
        events = out
    }

    /// Events never dropped: the front end must answer or act on each.
    private static func kept(_ ev: EngineEvent) -> Bool {
        switch ev {
        case .credentialsRequired, .trustRequired, .ready, .securityChosen: return true
        default: return false
        }
    }

    /// Kinds of event that say what something is now: a newer one makes an older one moot.
    enum Kind: Hashable {
        case cursor, cutText, pointerMoved, lockLights, desktopName, pointerMode, screenLayout, resized
        case desktopSizeResult, powerControl

        init?(_ ev: EngineEvent) {
            switch ev {
            case .cursor: self = .cursor
            case .cutText: self = .cutText
            case .pointerMoved: self = .pointerMoved
            case .lockLights: self = .lockLights
            case .desktopName: self = .desktopName
            case .pointerMode: self = .pointerMode
            case .screenLayout: self = .screenLayout
            case .resized: self = .resized
            case .desktopSizeRequestResult: self = .desktopSizeResult
            case .powerControl: self = .powerControl
            default: return nil
            }
        }
    }
}
