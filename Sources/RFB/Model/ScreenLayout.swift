/// The server's screens (monitors) as ExtendedDesktopSize describes them: viewports into the one
/// framebuffer. Plain values, built by the engine on the session thread, read by anyone.
public struct Screen: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var id: UInt32
    public var x: Int, y: Int, width: Int, height: Int
    public var flags: UInt32
    public init(id: UInt32, x: Int, y: Int, width: Int, height: Int, flags: UInt32 = 0) {
        self.id = id; self.x = x; self.y = y; self.width = width; self.height = height; self.flags = flags
    }
    public var rect: Rect { Rect(x: x, y: y, w: width, h: height) }
    public var description: String { "screen \(id) \(width)x\(height)+\(x)+\(y)" }
}

/// Framebuffer size plus the screens inside it.
public struct ScreenLayout: Equatable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var screens: [Screen]
    public init(width: Int, height: Int, screens: [Screen]) {
        self.width = width; self.height = height; self.screens = screens
    }
    /// What a basic server implies: one screen covering the framebuffer.
    public static func single(width: Int, height: Int) -> ScreenLayout {
        ScreenLayout(width: width, height: height, screens: [Screen(id: 0, x: 0, y: 0, width: width, height: height)])
    }
    public var description: String { "\(width)x\(height) [\(screens.map(\.description).joined(separator: ", "))]" }

    /// Why this layout is not usable, or nil when it is: at least one screen and at most
    /// `Limits.maxScreens`, every screen non-empty and inside the framebuffer, ids unique.
    public func problem() -> String? {
        if screens.isEmpty { return "has no screens" }
        if screens.count > Limits.maxScreens { return "has \(screens.count) screens, over the limit of \(Limits.maxScreens)" }
        var ids = Set<UInt32>()
        for s in screens {
            if s.width <= 0 || s.height <= 0 { return "has an empty \(s)" }
            if s.x < 0 || s.y < 0 || s.x + s.width > width || s.y + s.height > height {
                return "has \(s) outside the \(width)x\(height) framebuffer"
            }
            if !ids.insert(s.id).inserted { return "uses screen id \(s.id) twice" }
        }
        return nil
    }
}

/// Why an ExtendedDesktopSize rectangle was sent (its x field).
public enum DesktopSizeReason: Int, Equatable, Sendable {
    /// The server's desktop changed by itself (or it announces its layout after SetEncodings).
    case server = 0
    /// The reply to our SetDesktopSize.
    case thisClient = 1
    /// Another client's SetDesktopSize changed the desktop.
    case otherClient = 2
}

/// The result of a SetDesktopSize (the y field when the reason is `.thisClient`).
public enum DesktopSizeStatus: Equatable, Sendable {
    case ok, prohibited, outOfResources, invalidLayout
    case unknown(Int)

    public init(code: Int) {
        switch code {
        case 0: self = .ok
        case 1: self = .prohibited
        case 2: self = .outOfResources
        case 3: self = .invalidLayout
        default: self = .unknown(code)
        }
    }

    public var isSuccess: Bool { self == .ok }

    /// A sentence for the user.
    public var message: String {
        switch self {
        case .ok: return "the server changed its desktop size as requested"
        case .prohibited: return "the server does not allow clients to change its desktop size (resize prohibited)"
        case .outOfResources: return "the server is out of resources for the requested desktop size"
        case .invalidLayout: return "the server rejected the requested screen layout as invalid"
        case .unknown(let c): return "the server refused the desktop size change (status \(c), which the protocol does not define)"
        }
    }
}

/// `ClientEngine.requestDesktopSize` refused to send: what is wrong with the request.
public struct DesktopSizeRequestError: Error, CustomStringConvertible, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Limits {
    /// Screens in one layout: the wire count is a byte (255), but 64 monitors already covers a
    /// video wall; a picker with more is a hostile or broken claim.
    public static let maxScreens = 64
}
