/// A mistake in what the user gave: a host spec, an option's value, a config file (kiosk.conf,
/// the saved connections), a file to import. Its message says what was wrong and how to put it
/// right. Apart from `ProtocolError`, which is for what a server (or a recording) sent: a user's
/// typo is never reported as the server's fault, and a server's bytes never as the user's.
/// Here, the lowest module, because RFB itself reads user input too (encoding and security
/// type names).
public struct ConfigError: Error, CustomStringConvertible, Equatable, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
