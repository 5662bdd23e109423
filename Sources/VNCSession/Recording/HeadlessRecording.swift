import Foundation
import RFB

/// `viewer record`: connect without a window and give the session's messages to `recorder`
/// (an FBS file's writer) until the time is up, `shouldStop` says so (a signal), the recorder
/// fails (`failure`, e.g. a full disk) or the server ends the connection.
public enum HeadlessRecording {
    public struct Result: Sendable {
        public var updates: Int
        public var serverClosed: Bool
    }

    /// `destination` names where the recording goes, for the log.
    public static func run(_ plan: ConnectionPlan, options: SnapshotOptions, recorder: any RecordingObserver,
                           to destination: String, failure: @escaping () -> String?,
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
                    log("recording '\(name)' \(w)x\(h) to \(destination)")
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
            if let failure = failure() { throw ProtocolError(failure) }
            if ready, let s = seconds, monotonicSeconds() - readyAt >= s { break }
            bell.wait(seconds: 0.2)
        }
        if let failure = failure() { throw ProtocolError(failure) }
        return Result(updates: updates, serverClosed: serverClosed)
    }
}
