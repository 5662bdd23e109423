/// One fuzz target: what libFuzzer calls with each input, and the seeds it starts from.
struct FuzzTarget: Sendable {
    let name: String
    let summary: String
    /// libFuzzer's -max_len: enough for the target's structure, small enough to stay fast.
    let maxLength: Int
    let run: @Sendable (UnsafeBufferPointer<UInt8>) -> Void
    /// Hand-made seeds; `corpusSeeds` adds ones split from the recorded sessions.
    let seeds: @Sendable () -> [[UInt8]]
    var corpusSeeds: (@Sendable (CorpusRecordings) -> [[UInt8]])? = nil
}

/// Every target, by name (scripts/fuzz.sh --list prints them).
let allTargets: [FuzzTarget] = handshakeTargets + [rsaAESInnerTarget] + decoderTargets + [h264Target] + [inflateTarget] + messageTargets
    + cursorTargets + workerTargets

func target(named name: String) -> FuzzTarget? { allTargets.first { $0.name == name } }

/// Reads an input front to back. Past the end every read gives zeros, so any input is a valid
/// run and the fuzzer needs no length bookkeeping to stay structured.
struct FuzzInput {
    let bytes: UnsafeBufferPointer<UInt8>
    var pos = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var remaining: Int { bytes.count - pos }
    var atEnd: Bool { pos >= bytes.count }

    mutating func u8() -> UInt8 {
        guard pos < bytes.count else { return 0 }
        defer { pos += 1 }
        return bytes[pos]
    }

    mutating func u16() -> Int { Int(u8()) << 8 | Int(u8()) }

    /// Up to `n` bytes (fewer at the end).
    mutating func take(_ n: Int) -> ArraySlice<UInt8> {
        let k = max(0, min(n, remaining))
        defer { pos += k }
        return ArraySlice(bytes[pos..<(pos + k)])
    }

    /// Exactly `n` bytes, zero-filled past the end.
    mutating func exactly(_ n: Int) -> [UInt8] {
        var out = Array(take(n))
        if out.count < n { out += [UInt8](repeating: 0, count: n - out.count) }
        return out
    }

    mutating func rest() -> ArraySlice<UInt8> { take(remaining) }

    /// Up to `n` bytes, as a view of the input (no copy; valid for the run).
    mutating func view(_ n: Int) -> UnsafeBufferPointer<UInt8> {
        let k = max(0, min(n, remaining))
        defer { pos += k }
        return UnsafeBufferPointer(rebasing: bytes[pos..<(pos + k)])
    }
}

/// Big-endian helpers for building server bytes.
func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }

/// Concatenation that type-checks fast (long `+` chains of array literals do not).
func cat(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } }
