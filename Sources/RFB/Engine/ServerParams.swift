/// What the server has told us (TigerVNC's ServerParams): its protocol version, desktop and
/// what it can take. One value, owned by the engine and changed only by it as messages arrive
/// (session thread); anyone else gets a copy (`ClientEngine.server`, the session's snapshot).
public struct ServerParams: Equatable, Sendable {
    /// Protocol minor version in use: 3, 7 or 8.
    public var minorVersion = 8
    /// The desktop's name (ServerInit, DesktopName), made printable.
    public var name = ""
    /// The desktop's size as the server last set it (ServerInit, DesktopSize,
    /// ExtendedDesktopSize): what update requests cover. The framebuffer follows before the
    /// next rect that draws (a run of resizes makes only the last); 0x0 before ServerInit.
    public var width = 0, height = 0
    /// The pixel format ServerInit announced (ours is asked for right after); nil before.
    public var nativeFormat: PixelFormat?
    /// The server's screens, from its last ExtendedDesktopSize; nil until it sends one.
    public var screenLayout: ScreenLayout?
    /// It sent an ExtendedDesktopSize rect: it takes SetDesktopSize.
    public var supportsSetDesktopSize = false
    /// It acknowledged QEMU Extended Key Events (and we offered them): key codes go along.
    public var supportsQEMUKeyEvents = false
    /// It acknowledged ExtendedMouseButtons (and we offered them): buttons 8 and 9 reach it.
    public var supportsExtendedMouseButtons = false
    /// It announced the Extended Clipboard (its caps): cut text is UTF-8.
    public var supportsExtendedClipboard = false
    /// It answered or sent a fence.
    public var supportsFence = false
    /// It announced ContinuousUpdates (its first EndOfContinuousUpdates).
    public var supportsContinuousUpdates = false

    public init() {}
}
