// How the user wants a session shown and driven: plain values that the viewport and gestures
// (Interaction), the clipboard bridge (SDLViewer) and saved connections (VNCSession) all name.
// They live here, the one module all of them see; nothing in RFB uses them.

/// Which way clipboard text flows (`both`, `send`, `receive`, `off`).
public enum ClipboardDirection: String, Sendable, CaseIterable {
    case both, send, receive, off
    public var sends: Bool { self == .both || self == .send }
    public var receives: Bool { self == .both || self == .receive }
}

/// Which gestures apply.
public enum TouchInputMode: String, Equatable, Sendable, CaseIterable {
    /// The remote pointer goes where the finger is.
    case touch
    /// The finger moves a soft cursor relatively, like a laptop touchpad.
    case trackpad
}

/// How the framebuffer is scaled into the window.
public enum ScalingMode: Equatable, Sendable, CustomStringConvertible {
    /// The whole desktop fits the window, aspect kept, centred with bars (the default).
    case fit
    /// A fixed zoom in output pixels per framebuffer pixel: 1.0 is 1:1. Larger than the window
    /// means the view scrolls (see `Viewport.scroll`).
    case zoom(Double)

    /// Zoom limits: below 10% nothing is readable; above 1600% one pixel fills a thumbnail.
    public static let zoomRange = 0.1...16.0

    /// `fit`, `1:1`, `N%` (e.g. `200%`) or a plain factor (`2`, `0.5`), as the user writes them.
    public init?(parsing s: String) {
        let t = String(s.lowercased().filter { $0 != " " })
        if t == "fit" { self = .fit; return }
        if t == "1:1" { self = .zoom(1); return }
        var f: Double?
        if t.hasSuffix("%") { f = Double(t.dropLast()).map { $0 / 100 } } else { f = Double(t) }
        guard let z = f, z.isFinite, ScalingMode.zoomRange.contains(z) else { return nil }
        self = .zoom(z)
    }

    public var description: String {
        switch self {
        case .fit: return "fit"
        case .zoom(let z) where z == 1: return "1:1"
        case .zoom(let z): return "\(Int((z * 100).rounded()))%"
        }
    }
}
