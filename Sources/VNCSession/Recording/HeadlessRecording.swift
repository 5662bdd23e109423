import Foundation
import RFB

/// `viewer record`: connect without a window and record the session into an FBS file until
/// the time is up, `shouldStop` says so (a signal), or the server ends the connection.
public enum HeadlessRecording {
    public struct Result: Sendable {
        public var seconds: Double
        public var updates: Int
        public var bytes: Int
        public var serverClosed: Bool
    }

    public static func run(_ plan: ConnectionPlan, options: SnapshotOptions, recorder: SessionRecorder,
                           seconds: Double?, shouldStop: @escaping @Sendable () -> Bool,
                           log: @escaping @Sendable (String) -> Void) throws -> Result {
        let session = Session(plan: plan, settings: options.settings)
        let bell = EventBell()
        session.answers = options.answers
        session.log = log
        session.wake = { bell.ring() }
        session.startRecording(recorder)
        session.start()
        defer {
            session.stop(); session.waitUntilStopped(timeout: 2)
            session.stopRecording()
        }
        var updates = 0, ready = false, serverClosed = false
        var readyAt = monotonicSeconds()
        loop: while !shouldStop() {
            for ev in session.takeEvents() {
                switch ev {
                case .ready(let name, let w, let h):
                    ready = true
                    readyAt = monotonicSeconds()
                    log("recording '\(name)' \(w)x\(h) to \(recorder.path)")
                case .updateEnded: updates += 1
                default: Snapshot.answer(ev, session, options)
                }
            }
            switch session.state {
            case .failed(let why):
                guard ready else { throw ProtocolError(why) }
                serverClosed = true
                log("the server ended the session: \(why)")
                break loop
            case .closed: break loop
            default: break
            }
            if let failure = recorder.failure { throw ProtocolError(failure) }
            if ready, let s = seconds, monotonicSeconds() - readyAt >= s { break }
            bell.wait(seconds: 0.2)
        }
        if let failure = recorder.failure { throw ProtocolError(failure) }
        return Result(seconds: recorder.seconds, updates: updates, bytes: recorder.bytes, serverClosed: serverClosed)
    }
}
