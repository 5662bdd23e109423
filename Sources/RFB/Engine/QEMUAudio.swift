/// QEMU audio (-259): the server streams the guest's sound as PCM once asked. Server messages
/// are type 255, submessage 1, then an operation: 0 the stream ended, 1 it began, 2 data
/// (u32 length, then that many bytes of samples).
public struct AudioFormat: Equatable, Sendable {
    /// QEMU's sample formats: 0 u8, 1 s8, 2 u16, 3 s16, 4 u32, 5 s32 (little-endian).
    public var sampleFormat: UInt8
    public var channels: UInt8
    public var frequency: UInt32
    public static let s16Stereo44k = AudioFormat(sampleFormat: 3, channels: 2, frequency: 44100)
    public init(sampleFormat: UInt8, channels: UInt8, frequency: UInt32) {
        self.sampleFormat = sampleFormat; self.channels = channels; self.frequency = frequency
    }
}

/// A QEMU server message (255), after its type, as the engine acts on it.
enum QEMUServerMessage {
    case audioEnded, audioBegan
    case audioData([UInt8])
    /// Data of this many bytes to skip as it arrives (sound turned off since it was sent).
    case skip(Int)

    /// Largest audio data message taken (a second of 48 kHz stereo 32-bit is 384 KB).
    static let maxAudioChunk = 1 << 20

    /// Only the audio submessage is defined for servers. QEMU sends audio only after our
    /// enable: from a server never `asked` it is refused; after we turned it off (`on` false),
    /// data already on its way is skipped (never buffered whole).
    static func parse(_ r: inout ByteReader, asked: Bool, on: Bool) throws -> QEMUServerMessage? {
        try r.require(3)
        let sub = r.base[r.pos]
        guard sub == 1 else { throw ProtocolError("QEMU server message with submessage \(sub); only 1 (audio) exists") }
        let op = Int(r.base[r.pos + 1]) << 8 | Int(r.base[r.pos + 2])
        guard op <= 2 else {
            throw ProtocolError("QEMU audio operation \(op); servers send 0 (end), 1 (begin) and 2 (data)")
        }
        guard asked else {
            throw ProtocolError("the server sent QEMU audio (operation \(op)) though this viewer never asked for sound")
        }
        switch op {
        case 0:
            r.pos += 3
            return on ? .audioEnded : nil
        case 1:
            r.pos += 3
            return on ? .audioBegan : nil
        default:
            try r.require(7)
            let b = r.base + r.pos + 3
            let n = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
            guard n <= maxAudioChunk else {
                throw ProtocolError("QEMU audio data of \(n) bytes, over the \(maxAudioChunk)-byte limit")
            }
            guard on else {
                r.pos += 7
                return n > 0 ? .skip(n) : nil
            }
            try r.require(7 + n)
            r.pos += 7
            let p = try r.bytes(n)
            return .audioData(Array(UnsafeBufferPointer(start: p, count: n)))
        }
    }
}
