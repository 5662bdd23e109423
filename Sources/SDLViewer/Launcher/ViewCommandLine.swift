import RFB
import VNCSession

/// The `viewer view` command line of a saved connection: the launcher starts each session as
/// `viewer view ARGS`, and `viewer FILE.tigervnc` connects with an imported file's. It lives
/// with the launcher, the lowest module that builds it (SDLViewer cannot see viewer/); the
/// saved data stays in VNCSession's `SavedConnection`, which names no flag.
public enum ViewCommandLine {
    /// The `viewer view` arguments for this connection (the address first). The user name goes
    /// in the child's environment (`VNC_USERNAME`); a password never goes anywhere but the
    /// session's own credential store lookup.
    public static func arguments(for c: SavedConnection) -> [String] {
        var a = [c.address]
        if c.input == .trackpad { a.append("--trackpad") }
        if let q = c.quality { a += ["--quality", "\(q)"] }
        // naming the encodings leaves the quality unset: Tight without JPEG (as the kiosk does)
        if c.lossless { a += ["--encodings", "tight,zrle,hextile,zlib,corre,rre,copyrect,raw"] }
        if let m = c.monitor { a += ["--monitor", "\(m)"] }
        if c.viewOnly { a.append("--view-only") }
        if c.clipboard != .both { a += ["--clipboard", c.clipboard.rawValue] }
        if c.scale != .fit { a += ["--scale", SavedConnection.scaleText(c.scale)] }
        if c.fullscreen { a.append("--fullscreen") }
        if let via = c.via { a += ["--via", via] }
        if let security = c.security { a += ["--security", security] }
        if c.rememberPassword { a.append("--save-password") }
        return a
    }
}
