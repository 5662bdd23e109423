import RFB

/// FBS 001.000 (rfbproxy, vncrec, shared/tools/rfbrec.py): a server's side of a session from its
/// first byte, as blocks `[u32 BE length][data padded to 4][u32 BE ms]` after a 12-byte header.
/// Pure bytes in and out: reading and writing files is the caller's business.
extension RecordedStream {
    static let fbsMagic = Array("FBS 001.".utf8)

    /// Parses an FBS file's bytes. A truncated final block is dropped (recorders stop
    /// mid-write); anything else malformed is an error naming the offset.
    public init(fbs bytes: [UInt8]) throws {
        guard bytes.count >= 12, Array(bytes[0..<8]) == RecordedStream.fbsMagic else {
            throw ProtocolError("not an FBS recording (expected an 'FBS 001.xxx' header)")
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var ends: [Int] = [], times: [UInt32] = []
        var off = 12
        func u32(_ o: Int) -> UInt32 {
            UInt32(bytes[o]) << 24 | UInt32(bytes[o + 1]) << 16 | UInt32(bytes[o + 2]) << 8 | UInt32(bytes[o + 3])
        }
        while off + 4 <= bytes.count {
            let len = Int(u32(off))
            let padded = (len + 3) & ~3
            guard off + 4 + padded + 4 <= bytes.count else { break }
            out += bytes[(off + 4)..<(off + 4 + len)]
            ends.append(out.count)
            // recorders write times in order; one out of order is held at the one before
            times.append(max(times.last ?? 0, u32(off + 4 + padded)))
            off += 4 + padded + 4
        }
        self.init(stream: out, blockEnds: ends, blockTimes: times)
    }
}

/// Writes FBS 001.000 as rfbproxy and rfbrec.py do.
public enum FBSEncoder {
    public static let header = Array("FBS 001.000\n".utf8)

    /// One block: length, data zero-padded to a multiple of 4, milliseconds since the start.
    public static func block(_ data: UnsafeRawBufferPointer, ms: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 11)
        appendU32(&out, UInt32(truncatingIfNeeded: data.count))
        out.append(contentsOf: data)
        out.append(contentsOf: repeatElement(0, count: (4 - data.count % 4) % 4))
        appendU32(&out, ms)
        return out
    }

    public static func block(_ data: [UInt8], ms: UInt32) -> [UInt8] {
        data.withUnsafeBytes { block($0, ms: ms) }
    }

    /// The handshake a recording starts with: RFB 3.8, security None, and a ServerInit with
    /// the pixel format the messages are in (what rfbreplay.py and the bench expect).
    public static func handshake(width: Int, height: Int, format: PixelFormat, name: String) -> [UInt8] {
        var out = Array("RFB 003.008\n".utf8) + [1, 1, 0, 0, 0, 0]
        out += [UInt8(width >> 8 & 0xff), UInt8(width & 0xff), UInt8(height >> 8 & 0xff), UInt8(height & 0xff)]
        out += format.wireBytes
        let n = Array(name.utf8.prefix(255))
        appendU32(&out, UInt32(n.count))
        return out + n
    }

    static func appendU32(_ out: inout [UInt8], _ v: UInt32) {
        out += [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
    }
}
