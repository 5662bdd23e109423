import Foundation
import RFB

/// `viewer play`: a session whose "server" is a recording, with pause, seek, speed and loop.
/// The window treats `session` like any other (zoom, screens, screenshots work as live);
/// the controls here are called from the main thread.
public final class Player: @unchecked Sendable {
    public let recording: RecordedStream
    public let clock: PlaybackClock
    public let session: Session
    /// Start again from the beginning at the end (a kiosk's demo loop).
    public var loop = false

    public init(recording: RecordedStream, name: String, clock: PlaybackClock = PlaybackClock()) {
        self.recording = recording
        self.clock = clock
        var settings = ClientSettings()
        settings.serverName = name
        // a recording made with VNC authentication replays its recorded challenge and
        // result: any response will do, as in `viewer bench`
        settings.password = Array("recorded".utf8)
        settings.refusesUnoffered = false   // the recorded session negotiated its encodings
        // pauses and gaps are the recording's, not a stalled or dead server
        var live = LivenessPolicy()
        live.probeAfter = .infinity; live.deadAfter = .infinity
        live.handshakeTimeout = .infinity; live.handshakeSilence = .infinity
        live.stallWindow = .infinity
        session = Session(spec: name, settings: settings, liveness: live) { [recording, clock] _ in
            PlaybackTransport(recording, clock: clock, name: name)
        }
    }

    public var durationMs: Double { Double(recording.durationMs) }
    public var positionMs: Double { min(durationMs, clock.position) }
    public var paused: Bool { clock.paused }
    public var speed: Double { clock.speed }

    /// Shows exactly the frame a straight decode reaches at `ms`: the recording is reopened and
    /// everything up to there is fed at once.
    public func seek(toMs ms: Double) {
        clock.seek(toMs: min(max(0, ms), durationMs))
        session.reconnectNow()
    }

    public func setPaused(_ p: Bool) {
        // paused at the end, play means from the start
        if !p && positionMs >= durationMs { seek(toMs: 0) }
        clock.setPaused(p)
    }

    /// One step up or down the speed list (0.25x to 8x).
    public func stepSpeed(_ up: Bool) {
        let list = PlaybackClock.speeds
        let i = list.firstIndex { $0 >= speed } ?? list.count - 1
        clock.setSpeed(list[max(0, min(list.count - 1, i + (up ? 1 : -1)))])
    }

    /// Main loop: at the end, loop or hold. Returns true when it sought (the picture changes).
    @discardableResult
    public func tick() -> Bool {
        guard !paused, clock.position >= durationMs else { return false }
        if loop { seek(toMs: 0); return true }
        clock.seek(toMs: durationMs)
        clock.setPaused(true)
        return false
    }
}
