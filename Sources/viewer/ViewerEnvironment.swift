import Foundation
import VNCSession

/// The environment variables the modules act on, read here and handed down as values: no
/// module below the command line reads the environment, but for RFB's FARCAST_INFLATE
/// (`InflateEngine`), a process-wide choice of library that every process decoding must follow
/// alike (the viewer, `viewer bench`, the tests CI runs once per engine, the fuzz targets). Each is read when asked for, not
/// once at start: `viewer kiosk` points XDG_CONFIG_HOME and XDG_STATE_HOME at its state
/// directory before the session starts.
enum ViewerEnvironment {
    static var variables: [String: String] { ProcessInfo.processInfo.environment }

    /// PATH, for the tools run as children (ssh, secret-tool, setxkbmap).
    static var searchPath: String { variables["PATH"] ?? ChildProcess.defaultSearchPath }

    /// FARCAST_SSH: the ssh client and its fixed options for --via.
    static var sshCommand: [String] { ConnectionPlan.sshCommand(fromEnvironment: variables["FARCAST_SSH"]) }
}
