import CZlib
import FarcastTools
#if canImport(Glibc)
import Glibc
#endif
@_spi(Fuzzing) import RFB

/// A rect as a recording carried it: header fields and the bytes after the header.
struct RecordedRect {
    var x, y, w, h: Int
    var encoding: Int32
    var body: [UInt8]
    /// Zlib and ZRLE: what `body` inflated to on the recording's stream.
    var inflated: [UInt8]? = nil
}

enum RecordedMessage {
    case update([RecordedRect])
    /// Bell, cut text, colour map: kept as sent.
    case other([UInt8])
}

/// The recorded sessions (../shared/corpus) split into messages and rects, for seeds.
/// Only the first `prefixBytes` of each are read: plenty of seeds, and seconds, not minutes.
final class CorpusRecordings {
    static let prefixBytes = 9_000_000
    let recordings: [(name: String, messages: [RecordedMessage])]

    init(directory: String, only: (String) -> Bool = { _ in true }) {
        var out: [(String, [RecordedMessage])] = []
        for name in listDirectory(directory).filter({ $0.hasSuffix(".fbs") && only($0) }).sorted() {
            guard let bytes = readFile(directory + "/" + name), let rec = try? RecordedStream(fbs: bytes) else { continue }
            out.append((name, CorpusRecordings.split(Array(rec.stream.prefix(CorpusRecordings.prefixBytes)))))
        }
        recordings = out
    }

    /// Where each real rect ends, from the engine itself: with a work budget of one pixel it
    /// returns after every rect it decodes. Headers and pseudo-rects are then walked here.
    static func split(_ s: [UInt8]) -> [RecordedMessage] {
        var settings = ClientSettings()
        settings.password = Array("x".utf8)
        let e = ClientEngine(settings: settings)
        var start = 0
        // the handshake, byte by byte, to find where ServerInit ends
        while start < min(s.count, 4096) && e.phase != .normal {
            guard (try? e.feed([s[start]])) != nil else { return [] }
            start += 1
        }
        guard e.phase == .normal else { return [] }
        e.workBudgetPixels = 1
        var ends: [Int] = []
        do {
            try e.feed(Array(s[start...]))
            ends.append(e.stats.bytes)   // counts from the first byte
            while e.hasDeferredWork { try e.resume(); ends.append(e.stats.bytes) }
        } catch {}
        return walk(s, from: start, rectEnds: ends)
    }

    static let realEncodings: Set<Int32> = [Encoding.raw, Encoding.copyRect, Encoding.rre, Encoding.coRRE, Encoding.hextile,
                                            Encoding.zlib, Encoding.tight, Encoding.zrle]

    private static func walk(_ s: [UInt8], from start: Int, rectEnds: [Int]) -> [RecordedMessage] {
        func u16(_ i: Int) -> Int { Int(s[i]) << 8 | Int(s[i + 1]) }
        func u32(_ i: Int) -> Int { u16(i) << 16 | u16(i + 2) }
        var out: [RecordedMessage] = []
        var p = start, ei = 0
        messages: while p < s.count {
            switch s[p] {
            case 0:
                guard p + 4 <= s.count else { break messages }
                let count = u16(p + 2)
                p += 4
                var rects: [RecordedRect] = []
                var i = 0
                while count == 0xffff || i < count {
                    guard p + 12 <= s.count else { break messages }
                    var r = RecordedRect(x: u16(p), y: u16(p + 2), w: u16(p + 4), h: u16(p + 6),
                                         encoding: Int32(bitPattern: UInt32(u32(p + 8))), body: [])
                    p += 12
                    let len: Int
                    if realEncodings.contains(r.encoding) {
                        while ei < rectEnds.count && rectEnds[ei] <= p { ei += 1 }
                        guard r.w * r.h > 0, ei < rectEnds.count else { break messages }
                        len = rectEnds[ei] - p
                    } else {
                        switch r.encoding {
                        case Encoding.lastRect, Encoding.desktopSize, Encoding.qemuExtendedKeyEvent, Encoding.extendedMouseButtons: len = 0
                        case Encoding.extendedDesktopSize: guard p < s.count else { break messages }; len = 4 + 16 * Int(s[p])
                        case Encoding.cursor: len = r.w * r.h * 4 + (r.w + 7) / 8 * r.h
                        case Encoding.desktopName: guard p + 4 <= s.count else { break messages }; len = 4 + u32(p)
                        default: break messages
                        }
                    }
                    guard p + len <= s.count else { break messages }
                    r.body = Array(s[p..<(p + len)])
                    p += len
                    rects.append(r)
                    i += 1
                    if r.encoding == Encoding.lastRect { break }
                }
                out.append(.update(rects))
            case 2:
                out.append(.other([2])); p += 1
            case 3:
                guard p + 8 <= s.count, p + 8 + u32(p + 4) <= s.count else { break messages }
                let n = 8 + u32(p + 4)
                out.append(.other(Array(s[p..<(p + n)]))); p += n
            default:
                break messages
            }
        }
        return out
    }
}

func listDirectory(_ path: String) -> [String] {
    guard let d = opendir(path) else { return [] }
    defer { closedir(d) }
    var names: [String] = []
    while let ent = readdir(d) {
        let name = withUnsafeBytes(of: ent.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n <= 0 { break }
        out += buf[0..<n]
    }
    return out
}

/// One deflate stream, flushed (not finished) after each piece, as servers write theirs.
final class Deflater {
    private let strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    init() {
        strm.initialize(to: z_stream())
        deflateInit_(strm, Z_DEFAULT_COMPRESSION, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
    }
    deinit { deflateEnd(strm); strm.deallocate() }

    func compress(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(deflateBound(strm, uLong(data.count))) + 64)
        var input = data
        let produced = input.withUnsafeMutableBufferPointer { ib in
            out.withUnsafeMutableBufferPointer { ob -> Int in
                strm.pointee.next_in = ib.baseAddress; strm.pointee.avail_in = UInt32(ib.count)
                strm.pointee.next_out = ob.baseAddress; strm.pointee.avail_out = UInt32(ob.count)
                _ = deflate(strm, Z_SYNC_FLUSH)
                return ob.count - Int(strm.pointee.avail_out)
            }
        }
        return Array(out.prefix(produced))
    }
}

/// One inflate stream across a recording's rects: what each rect's compressed bytes give.
final class Inflater {
    private let strm = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    init() {
        strm.initialize(to: z_stream())
        inflateInit_(strm, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
    }
    deinit { inflateEnd(strm); strm.deallocate() }

    /// Everything `data` inflates to, or nil on a zlib error.
    func inflateAll(_ data: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var input = data
        return input.withUnsafeMutableBufferPointer { ib -> [UInt8]? in
            strm.pointee.next_in = ib.baseAddress; strm.pointee.avail_in = UInt32(ib.count)
            while true {
                let (rc, n) = chunk.withUnsafeMutableBufferPointer { ob -> (Int32, Int) in
                    strm.pointee.next_out = ob.baseAddress; strm.pointee.avail_out = UInt32(ob.count)
                    let rc = inflate(strm, Z_SYNC_FLUSH)
                    return (rc, ob.count - Int(strm.pointee.avail_out))
                }
                out += chunk[0..<n]
                if rc == Z_BUF_ERROR || (rc == Z_OK && strm.pointee.avail_in == 0 && n < chunk.count) { return out }
                if rc != Z_OK { return rc == Z_STREAM_END ? out : nil }
            }
        }
    }
}
