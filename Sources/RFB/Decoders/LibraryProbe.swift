/// Told of each call into zlib's inflate, TurboJPEG's decompress and libavcodec's H.264 decoder, for benchmarks that show
/// how far our own decoding adds to what the libraries alone cost on the same data. Passed to
/// the engine by whoever measures; without one, the hot path only tests for nil.
public protocol LibraryProbe: AnyObject {
    /// Before a library call: a token handed back to `leave`.
    func enter(_ library: ProbedLibrary) -> UInt64
    /// After the call.
    func leave(_ library: ProbedLibrary, _ token: UInt64)
}

public enum ProbedLibrary: Sendable { case zlib, turboJPEG, avcodec }
