import ArgumentParser
import FarcastTools
import Foundation
import RFB
import VNCSession

struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Connect, take the whole desktop, wait until updates go quiet, write a PNG.")

    @OptionGroup var conn: ConnectionOptions

    @Option(name: .short, help: "Output PNG file.")
    var output: String

    @Option(help: "Milliseconds without updates that count as quiet.", transform: Parse.positive("a number of milliseconds from 1"))
    var quietMs: Int = 500

    @Option(help: "Seconds to wait at most.", transform: Parse.seconds)
    var timeout: Double = 30

    func run() throws {
        var o = SnapshotOptions()
        o.settings = conn.settings
        // A snapshot waits for the screen to go quiet (500 ms by default), so a second decoding
        // thread saves it no time that shows, and on 2 cores it cost 7-16 % more CPU (waking a
        // worker is an interrupt to the other core). Asked for, it is there.
        o.settings.decodeThreads = conn.decodeThreads ?? 1
        conn.log("decoding on \(o.settings.decodeThreads) thread\(o.settings.decodeThreads == 1 ? "" : "s")")
        o.quietSeconds = Double(quietMs) / 1000
        o.maxSeconds = timeout
        o.connectTimeout = conn.connectTimeout
        o.answers = conn.answers()
        // what the session could not answer is asked on the terminal, when there is one;
        // without one an unknown identity is refused with what to do about it
        let terminal = TerminalPrompt.available
        if terminal {
            var ask = conn.givenCredentials
            ask.prompt = true
            o.askCredentials = ask.provider
        }
        o.trust = { id in terminal && TerminalPrompt.askTrust(id) ? .accept : KnownHosts.notTrusted(id) }
        do {
            let r = try Snapshot.capture(conn.plan, options: o, log: conn.log)
            try PrivateFile.replace(output, with: PNGWriter.encode(r.framebuffer), makeDirectory: false, onlyRegularFile: true)
            conn.log("wrote \(output) (\(r.framebuffer.width)x\(r.framebuffer.height), \(r.updates) updates)")
        } catch {
            die("\(error)")
        }
    }
}
