import RFB

/// What a session publishes for other threads (the window): one immutable value, replaced whole
/// under the session's lock by the session thread after each engine call and each link
/// measurement, and read with `Session.snapshot`. Between connections it keeps the last one's.
public struct SessionSnapshot: Equatable, Sendable {
    /// What the server told the connection: name, desktop size, screen layout, and what it
    /// takes (SetDesktopSize, QEMU key events, extended mouse buttons, the Extended Clipboard,
    /// fences, continuous updates). `ServerParams()` before the first ServerInit.
    public var server = ServerParams()
    /// The link as last measured (the connection-info panel, `-v`).
    public var link = LinkSummary()

    public init(server: ServerParams = ServerParams(), link: LinkSummary = LinkSummary()) {
        self.server = server
        self.link = link
    }
}
