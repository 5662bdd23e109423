import ArgumentParser
import Dispatch
import FarcastTools
import Foundation
import RFB
import VNCSession

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Connect without a window and record the session into an FBS 001.000 file (as rfbproxy and vncrec write; `viewer play` plays it). Ctrl+C ends it.")

    @OptionGroup var conn: ConnectionOptions

    @Option(name: .short, help: "Output FBS file (created mode 0600: it holds what was on the remote screen).")
    var output: String

    @Option(help: "Seconds to record (from the login); default: until Ctrl+C or the server ends the session.", transform: Parse.seconds)
    var seconds: Double?

    func run() throws {
        var o = SnapshotOptions()
        o.settings = conn.settings
        o.connectTimeout = conn.connectTimeout
        o.answers = conn.answers()
        let terminal = TerminalPrompt.available
        if terminal {
            var ask = conn.givenCredentials
            ask.prompt = true
            o.askCredentials = ask.provider
        }
        o.trust = { id in terminal && TerminalPrompt.askTrust(id) ? .accept : KnownHosts.notTrusted(id) }
        let stop = StopSignal()
        // a regular file there is replaced, a link is not followed
        let recorder: SessionRecorder
        do {
            recorder = SessionRecorder(path: output, fileDescriptor: try PrivateFile.create(output, replacingRegularFile: true))
        } catch {
            die("\(TransportError("the recording: \(error)"))")
        }
        defer { recorder.close() }
        do {
            let r = try HeadlessRecording.run(conn.plan, options: o, recorder: recorder, to: output,
                                              failure: { recorder.failure }, seconds: seconds,
                                              shouldStop: { stop.raised }, log: conn.log)
            say(String(format: "recorded %.1f s, %d updates, %d bytes to %@", recorder.seconds, r.updates, recorder.bytes, output))
        } catch {
            die("\(error)")
        }
    }
}

/// SIGINT and SIGTERM end a recording in order (the file stays whole) instead of killing it.
final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    private var sources: [DispatchSourceSignal] = []
    var raised: Bool { lock.withLock { flag } }

    init() {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { [weak self] in self?.lock.withLock { self?.flag = true } }
            s.resume()
            sources.append(s)
        }
    }
}
