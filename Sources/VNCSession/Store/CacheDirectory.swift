import Foundation

/// What Farcast keeps that can be thrown away: `$XDG_CACHE_HOME/farcast`, else
/// `~/.cache/farcast` (session thumbnails, libX11's compiled Compose table).
public enum CacheDirectory {
    public static func path(env: [String: String]) -> String {
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let cache = env["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.cache"
        return cache + "/farcast"
    }
}
