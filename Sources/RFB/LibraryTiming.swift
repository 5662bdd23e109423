#if canImport(Glibc)
import Glibc
#endif

/// Time spent inside zlib's inflate and TurboJPEG's decompress, for `viewer bench --split`:
/// it shows how far our own decoding adds to what the libraries alone cost on the same data.
/// Off by default (no clock reads on the hot path); only the single-threaded benchmark turns it on.
public enum LibraryTiming {
    nonisolated(unsafe) public static var enabled = false
    nonisolated(unsafe) public static var inflateNanos: UInt64 = 0
    nonisolated(unsafe) public static var jpegNanos: UInt64 = 0

    @inline(__always) static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    public static func reset() { inflateNanos = 0; jpegNanos = 0 }
}
