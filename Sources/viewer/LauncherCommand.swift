import ArgumentParser
import Foundation
import RFB
import SDLViewer
import VNCSession

/// `viewer` with no host (the desktop entry) opens the launcher.
struct LauncherCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launcher",
        abstract: "Open the launcher: saved connections, recent ones and quick connect (what `viewer` with no host does). Saved connections live in $XDG_CONFIG_HOME/farcast/connections.")

    @Option(name: .customLong("import"), help: "Save the connection of a TigerVNC (.tigervnc) or Remmina (.remmina) file first (repeatable; dropping a file on the launcher does the same).")
    var imports: [String] = []

    @Flag(help: "Always lay out for a touchscreen (larger targets; text fields bring up the on-screen keyboard). Without it the touch layout follows the last input: a finger, or a mouse or keyboard.")
    var touchLayout = false

    func run() throws {
        let env = ViewerEnvironment.variables
        let w = LauncherWindow(store: SavedConnectionStore(path: SavedConnectionStore.defaultPath(env: env)),
                               recent: RecentConnections(path: RecentConnections.defaultPath(env: env)),
                               thumbnailDirectory: SessionThumbnails.directory(env: env))
        w.importPaths = imports
        w.startInTouchLayout = touchLayout
        let window = ViewerConfiguration.fromEnvironment(env)
        w.renderDriver = window.renderDriver
        w.fontPath = window.fontPath
        prepareVideoDriver(env)
        let status: Int32
        do { status = try w.run() } catch { die("\(error)") }
        if status != 0 { throw ExitCode(status) }
    }
}

/// The command line before parsing: no arguments at all is the launcher, and a `.tigervnc` or
/// `.remmina` file given as the host connects with that file's settings (as vncviewer does).
enum LauncherArguments {
    static func rewrite(_ args: [String]) -> [String] {
        if args.isEmpty { return ["launcher"] }
        // only the window takes a file's settings (`viewer FILE` or `viewer view FILE`)
        let start = args.first == "view" ? 1 : 0
        guard let file = args.dropFirst(start).first, isConnectionFile(file) else { return args }
        let r: ConnectionImport.Result
        do { r = try ConnectionImport.load(path: file) } catch { die("\(error)", code: 2) }
        if let u = r.connection.username { setenv("VNC_USERNAME", u, 1) }
        let shown = ServerText.printable((file as NSString).lastPathComponent, limit: 80)
        for why in r.refused { say("\(shown): refused \(why)") }
        if !r.notCarried.isEmpty { say("\(shown): not carried over: \(r.notCarried.joined(separator: ", "))") }
        return Array(args.prefix(start)) + ViewCommandLine.arguments(for: r.connection) + args.dropFirst(start + 1)
    }

    static func isConnectionFile(_ a: String) -> Bool {
        let lower = a.lowercased()
        return !a.hasPrefix("-") && (lower.hasSuffix(".tigervnc") || lower.hasSuffix(".remmina")) && FileManager.default.fileExists(atPath: a)
    }
}
