/// Watches the server's message stream as the engine parses it (decrypted), from a message
/// boundary on: what a session recording is made of. One hook: the engine says where recording
/// starts, passes the bytes as it is done with them, and says at each message boundary what the
/// bytes before it were, so the observer can decide what to keep (a recording leaves out what
/// the reference tools cannot read) without parsing anything itself.
///
/// Offsets count the connection's stream from its first byte (the handshake's included).
/// Everything is called on the engine's thread, inside `feed`/`resume`.
public protocol RecordingObserver: AnyObject {
    /// Recording begins at stream offset `offset`, a message boundary: the desktop is
    /// `width`x`height` then, named `name`, and the messages that follow are in `format`.
    func recordingStarted(at offset: Int, width: Int, height: Int, name: String, format: PixelFormat)
    /// A unit of the stream, at its boundary: stream offsets `from..<to`. Units come in stream
    /// order, each before its bytes do (`to` may lie past the bytes fed so far: a message
    /// skipped as it arrives). Rects of real encodings are not reported (nothing to decide).
    func parsed(_ unit: ServerUnit, from: Int, to: Int)
    /// Stream bytes from `offset` on, in order, once parsed (a rect that streams comes in pieces).
    func consumed(_ bytes: UnsafeRawBufferPointer, at offset: Int)
}

/// A unit of the server's message stream, as a `RecordingObserver` is told of it.
public enum ServerUnit: Equatable, Sendable {
    /// A whole message other than an update; its first byte is `type` (ServerCutText 3,
    /// EndOfContinuousUpdates 150, Fence 248, QEMU 255, ...).
    case message(type: UInt8)
    /// A FramebufferUpdate's type, padding and rect count.
    case updateHeader
    /// A rect of a pseudo-encoding (header and payload): handled by the engine itself.
    case pseudoRect(encoding: Int32)
    /// The update ends here (`from == to`), with the server's LastRect or after its count.
    case updateEnd(lastRect: Bool)
}
