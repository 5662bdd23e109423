/// A read cursor over bytes already buffered. Every read checks the remaining count
/// and throws `NeedMoreData` when short, so parsers are resumable from their last `commit()`.
/// Multi-byte integers are big-endian (network order) unless named otherwise.
public struct ByteReader {
    public let base: UnsafePointer<UInt8>
    public let end: Int
    public var pos: Int
    /// Position up to which the parse is durable; the engine rewinds here on `NeedMoreData`.
    public var committed: Int

    public init(base: UnsafePointer<UInt8>, count: Int, pos: Int = 0) {
        self.base = base; self.end = count; self.pos = pos; self.committed = pos
    }

    @inline(__always) public var remaining: Int { end - pos }

    @inline(__always) public mutating func commit() { committed = pos }

    /// Throws unless `n` bytes are buffered. Call before mutating any state for a unit.
    @inline(__always) func require(_ n: Int) throws {
        if n > end - pos { throw NeedMoreData() }
    }

    @inline(__always) mutating func u8() throws -> UInt8 {
        try require(1); defer { pos += 1 }; return base[pos]
    }
    @inline(__always) mutating func u16() throws -> UInt16 {
        try require(2); defer { pos += 2 }
        return UInt16(base[pos]) << 8 | UInt16(base[pos + 1])
    }
    @inline(__always) mutating func u32() throws -> UInt32 {
        try require(4); defer { pos += 4 }
        return UInt32(base[pos]) << 24 | UInt32(base[pos + 1]) << 16 | UInt32(base[pos + 2]) << 8 | UInt32(base[pos + 3])
    }
    @inline(__always) mutating func s32() throws -> Int32 { Int32(bitPattern: try u32()) }
    @inline(__always) mutating func skip(_ n: Int) throws { try require(n); pos += n }

    /// Pointer to the next `n` bytes, consumed. Valid until the engine's next feed.
    @inline(__always) mutating func bytes(_ n: Int) throws -> UnsafePointer<UInt8> {
        try require(n); defer { pos += n }; return base + pos
    }
    /// Pointer to the next bytes without consuming them.
    @inline(__always) var current: UnsafePointer<UInt8> { base + pos }

    mutating func string(_ n: Int) throws -> String {
        let p = try bytes(n)
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// Tight's compact length: 1–3 bytes, 7 bits each, the third 8 bits.
    mutating func compactLength() throws -> Int {
        let b0 = Int(try u8()); var len = b0 & 0x7f
        if b0 & 0x80 != 0 {
            let b1 = Int(try u8()); len |= (b1 & 0x7f) << 7
            if b1 & 0x80 != 0 { len |= Int(try u8()) << 14 }
        }
        return len
    }
}
