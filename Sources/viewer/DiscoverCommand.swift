import ArgumentParser
import Foundation
import VNCSession

/// `viewer discover`: the hosts the launcher would list, as lines a person or a script reads
/// (as avahi-browse prints them): `+ NAME<TAB>TYPE<TAB>ADDRESS` when a host appears (ADDRESS is
/// what `viewer ADDRESS` connects to), `- NAME<TAB>TYPE` when it goes, `! PROBLEM` when the
/// discovery cannot run (no avahi-daemon) and `ok` once it runs again.
struct DiscoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "List VNC servers (_rfb._tcp) and Macs (_workstation._tcp) announced on the local network through Avahi, as they come and go.")

    @Option(help: "Stop after this many seconds (default: run until interrupted).")
    var seconds: Double?

    func validate() throws {
        if let s = seconds, !(s.isFinite && s > 0) {
            throw ValidationError("--seconds must be a positive number of seconds, e.g. --seconds 5")
        }
    }

    func run() throws {
        let changed = DispatchSemaphore(value: 0)
        let d = ServiceDiscovery { changed.signal() }
        do { try d.start() } catch { die("cannot browse the network: \(error)") }
        defer { d.stop() }
        // written at once, not when a buffer fills: a script reads the lines as they come
        func emit(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        let end = seconds.map { Date().addingTimeInterval($0) }
        var shown: [String: DiscoveredService] = [:]
        var problem: String?
        func key(_ s: DiscoveredService) -> String { "\(s.name)\t\(s.type)\t\(s.domain)" }
        while end.map({ Date() < $0 }) ?? true {
            let now = Dictionary(d.services.map { (key($0), $0) }, uniquingKeysWith: { a, _ in a })
            for (k, s) in now.sorted(by: { $0.key < $1.key }) where shown[k] != s {
                emit("+ \(s.displayName)\t\(s.type)\t\(s.connectAddress)")
            }
            for (k, s) in shown.sorted(by: { $0.key < $1.key }) where now[k] == nil {
                emit("- \(s.displayName)\t\(s.type)")
            }
            shown = now
            let p = d.problem
            if p != problem { emit(p.map { "! \($0)" } ?? "ok") }
            problem = p
            let wait = end.map { max(0, $0.timeIntervalSinceNow) } ?? 3600
            _ = changed.wait(timeout: .now() + min(wait, 3600))
        }
    }
}
