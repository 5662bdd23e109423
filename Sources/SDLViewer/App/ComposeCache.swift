import Foundation
import VNCSession

/// On X11, SDL opens an input method at start and libX11 parses the locale's Compose table for
/// it (en_US.UTF-8's is 512 KB): 10-15 ms of CPU at every start, a quarter of the window's.
/// libX11 keeps a compiled copy where it is allowed to: in `$XCOMPOSECACHE`, else in
/// `~/.compose-cache`, only if that directory exists and is the user's alone (and never for
/// root). Unless the user has one of those, ours is `$XDG_CACHE_HOME/farcast/compose`: the
/// first start writes the table there, later ones map it. Text input composes as before.
enum ComposeCache {
    /// Points libX11 at our cache directory (made 0700) when the user has none; before SDL_Init,
    /// while this is the only thread reading the environment.
    static func use() {
        guard let dir = directory(env: ProcessInfo.processInfo.environment) else { return }
        setenv("XCOMPOSECACHE", dir, 0)
    }

    /// The directory to use (made if missing), or nil: no X display, the user chose one, has
    /// libX11's own, or ours cannot be made.
    static func directory(env: [String: String]) -> String? {
        guard let display = env["DISPLAY"], !display.isEmpty else { return nil }
        // set at all, even empty, is the user's choice (libX11 reads it as it is)
        if env["XCOMPOSECACHE"] != nil { return nil }
        let fm = FileManager.default
        if let home = env["HOME"], !home.isEmpty, fm.fileExists(atPath: home + "/.compose-cache") { return nil }
        let dir = CacheDirectory.path(env: env) + "/compose"
        do {
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return nil
        }
        return dir
    }
}
