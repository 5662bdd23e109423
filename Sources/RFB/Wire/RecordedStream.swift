/// The server's side of a recorded session (its bytes from the first, as they arrived, in blocks
/// with their times): what a playback serves paced by its clock, and a benchmark feeds as fast
/// as it can. A plain value: the file formats that hold one (FBS) are read and written in
/// FarcastTools.
public struct RecordedStream: Sendable {
    /// All block payloads back to back.
    public let stream: [UInt8]
    /// End offset in `stream` of each block (blocks are fed one by one, as they were received).
    public let blockEnds: [Int]
    /// Each block's time in milliseconds since the recording started, in order.
    public let blockTimes: [UInt32]

    /// `blockEnds` and `blockTimes` in step, each ascending, the last end at most `stream.count`.
    public init(stream: [UInt8], blockEnds: [Int], blockTimes: [UInt32]) {
        self.stream = stream
        self.blockEnds = blockEnds
        self.blockTimes = blockTimes
    }

    /// Milliseconds from the start to the last block.
    public var durationMs: UInt32 { blockTimes.last ?? 0 }

    /// Number of blocks whose time is at most `ms` (a seek feeds exactly these at once).
    public func blocks(upTo ms: UInt32) -> Int {
        var lo = 0, hi = blockTimes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if blockTimes[mid] <= ms { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
