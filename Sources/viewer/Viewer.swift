import ArgumentParser
import VNCSession

/// The program's version, shown by `viewer --version`.
enum FarcastVersion {
    static let string = "0.3.0"
}

/// The name help, the man page and shell completions use: `farcast` when run by that name (the
/// installed package's /usr/bin/farcast), else `viewer`, the command this project has always had.
enum FarcastCommandName {
    static let string: String = {
        let invoked = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        return invoked == "farcast" ? "farcast" : "viewer"
    }()
}

@main
struct Viewer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: FarcastCommandName.string,
        abstract: "Farcast, a VNC viewer.",
        version: FarcastVersion.string,
        subcommands: [ViewCommand.self, LauncherCommand.self, DiscoverCommand.self, SnapshotCommand.self, RecordCommand.self, PlayCommand.self, KioskCommand.self, BenchCommand.self, RenderBenchCommand.self],
        defaultSubcommand: ViewCommand.self)

    static func main() {
        ProcessSecrets.secureProcess()
        main(LauncherArguments.rewrite(Array(CommandLine.arguments.dropFirst())))
    }
}
