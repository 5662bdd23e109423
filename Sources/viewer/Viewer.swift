import ArgumentParser
import VNCSession

/// The program's version, shown by `viewer --version`.
enum FarcastVersion {
    static let string = "0.3.0"
}

@main
struct Viewer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "viewer",
        abstract: "Farcast, a VNC viewer.",
        version: FarcastVersion.string,
        subcommands: [ViewCommand.self, SnapshotCommand.self, BenchCommand.self, RenderBenchCommand.self],
        defaultSubcommand: ViewCommand.self)

    static func main() {
        ProcessSecrets.secureProcess()
        main(nil)
    }
}
