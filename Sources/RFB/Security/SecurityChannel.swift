/// A layer between the socket bytes and the RFB parser once a security type encrypts the
/// session (VeNCrypt's TLS, RSA-AES's AES-EAX framing). The engine stays sans-I/O: raw bytes go
/// in through `ingest`, plaintext comes out through `drainPlain`; plaintext goes in through
/// `writePlain`, raw bytes come out through `takeRaw`. Used on the engine's thread only.
protocol SecureChannel: AnyObject {
    /// Raw bytes from the server.
    func ingest(_ p: UnsafeRawPointer, _ n: Int) throws
    /// Appends every plaintext byte available to `input`.
    func drainPlain(into input: InputBuffer) throws
    /// Plaintext for the server.
    func writePlain(_ bytes: [UInt8]) throws
    /// Raw bytes for the socket.
    func takeRaw() -> [UInt8]
    var hasRaw: Bool { get }
    /// The server ended the encrypted stream (TLS close_notify): nothing after it is read.
    var peerClosed: Bool { get }
    /// Ends the encrypted stream from our side (TLS close_notify into `takeRaw`).
    func close()
}

extension SecureChannel {
    var peerClosed: Bool { false }
    func close() {}
}
