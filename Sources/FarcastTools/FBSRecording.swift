import RFB
/// An FBS 001.000 recording (rfbproxy, vncrec, shared/tools/rfbrec.py): the server's side of a
/// session from its first byte, as blocks `[u32 BE length][data padded to 4][u32 BE ms]`.
public struct FBSRecording {
    /// All block payloads back to back.
    public let stream: [UInt8]
    /// End offset in `stream` of each block (blocks are fed one by one, as they were received).
    public let blockEnds: [Int]

    static let magic = Array("FBS 001.".utf8)

    /// Parses the file's bytes. A truncated final block is dropped (recorders stop mid-write);
    /// anything else malformed is an error naming the offset.
    public init(bytes: [UInt8]) throws {
        guard bytes.count >= 12, Array(bytes[0..<8]) == FBSRecording.magic else {
            throw ProtocolError("not an FBS recording (expected an 'FBS 001.xxx' header)")
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var ends: [Int] = []
        var off = 12
        while off + 4 <= bytes.count {
            let len = Int(bytes[off]) << 24 | Int(bytes[off + 1]) << 16 | Int(bytes[off + 2]) << 8 | Int(bytes[off + 3])
            let padded = (len + 3) & ~3
            guard off + 4 + padded + 4 <= bytes.count else { break }
            out += bytes[(off + 4)..<(off + 4 + len)]
            ends.append(out.count)
            off += 4 + padded + 4
        }
        stream = out
        blockEnds = ends
    }
}
