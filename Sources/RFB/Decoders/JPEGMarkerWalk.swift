#if canImport(Glibc)
import Glibc
#endif

/// The end of a JPEG (encoding 21) rect, found by walking its marker segments to EOI, resumably:
/// bytes arrive in pieces and each call goes on from where the last stopped, so a rect trickled
/// in costs a walk over its bytes once, not once per piece. Offsets count from the rect's first
/// byte, which the engine keeps at the reader's position until the rect is done (the decoder
/// commits nothing before EOI). The tables' segments are noted as offsets, copied by the decoder
/// once EOI is in.
struct JPEGMarkerWalk {
    /// Marker segments and standalone markers in one rect: a baseline JPEG has about ten, a
    /// progressive one a few dozen; more is a server making us walk and keep offsets for nothing.
    static let maxSegments = 1024
    /// Scans (SOS) in one rect: TigerVNC and RealVNC send baseline JPEGs (one scan), libjpeg's
    /// progressive script makes ten; each scan is another pass over the image in libjpeg.
    static let maxScans = 64
    /// DQT and DHT segments in one rect: at most 4 quantisation and 8 Huffman tables, redefined
    /// before some scans of a progressive JPEG.
    static let maxTableSegments = 64
    /// Their bytes in one rect (kept for later rects without tables): four 16-bit quantisation
    /// tables are 520 bytes, eight Huffman tables at most 2.2 KB.
    static let maxTableBytes = 64 * 1024

    enum Failure: Error, Equatable {
        case noStartOfImage
        case expectedMarker(at: Int)
        case badSegmentLength(Int)
        case tooLong(limit: Int)
        case tooManySegments
        case tooManyScans
        case tooManyTables
        case tablesTooLarge
    }

    /// The most bytes the rect may have (checked as the walk goes, so a rect without EOI ends
    /// at the limit instead of being buffered for ever).
    let limit: Int
    /// Where the next call goes on: the first byte not yet walked past.
    private(set) var at = 0
    /// Between an SOS segment and the marker that ends its entropy-coded data.
    private var inScan = false
    private(set) var segments = 0
    private(set) var scans = 0
    /// Whole DQT and DHT segments (markers included), in order.
    private(set) var quantTables: [Range<Int>] = []
    private(set) var huffmanTables: [Range<Int>] = []
    private(set) var tableBytes = 0
    /// The first frame header (SOFn) segment's offset.
    private(set) var frameAt: Int?
    /// EOI has been walked past: `at` is the rect's length.
    private(set) var done = false
    /// Bytes looked at over all calls (tests: the walk is linear in the rect's length).
    private(set) var examined = 0

    init(limit: Int) { self.limit = limit }

    /// Walks on over the `count` bytes at `p` (the rect's bytes buffered so far, from its first);
    /// true at EOI, false when the bytes run out (call again with more).
    mutating func advance(_ p: UnsafePointer<UInt8>, count n: Int) throws(Failure) -> Bool {
        if done { return true }
        if at == 0 {
            guard n >= 2 else { return false }
            guard p[0] == 0xff, p[1] == 0xd8 else { throw .noStartOfImage }
            at = 2
            examined += 2
        }
        while true {
            guard at <= limit else { throw .tooLong(limit: limit) }
            if inScan {
                if skipEntropyData(p, n) { continue }
                guard at <= limit else { throw .tooLong(limit: limit) }
                return false
            }
            guard at + 2 <= n else { return false }
            examined += 2
            guard p[at] == 0xff else { throw .expectedMarker(at: at) }
            let marker = p[at + 1]
            switch marker {
            case 0xd9:   // EOI
                at += 2
                done = true
                return true
            case 0xff:   // a fill byte before a marker
                at += 1
                continue
            case 0xd0...0xd7, 0x01:   // standalone: RSTn, TEM
                try count()
                at += 2
                continue
            default:
                break
            }
            guard at + 4 <= n else { return false }
            examined += 2
            let len = Int(p[at + 2]) << 8 | Int(p[at + 3])
            guard len >= 2 else { throw .badSegmentLength(len) }
            // the whole segment first (at most 64 KiB): what it says is used only once it is all here
            guard at + 2 + len <= n else { return false }
            try count()
            let segment = at..<(at + 2 + len)
            switch marker {
            case 0xdb: try keepTable(segment, quant: true)
            case 0xc4: try keepTable(segment, quant: false)
            case 0xc0...0xcf where marker != 0xc8 && marker != 0xcc:   // SOFn (not JPG, DAC)
                if frameAt == nil { frameAt = at }
            case 0xda:
                scans += 1
                guard scans <= JPEGMarkerWalk.maxScans else { throw .tooManyScans }
                inScan = true
            default: break
            }
            at = segment.upperBound
        }
    }

    private mutating func count() throws(Failure) {
        segments += 1
        guard segments <= JPEGMarkerWalk.maxSegments else { throw .tooManySegments }
    }

    private mutating func keepTable(_ segment: Range<Int>, quant: Bool) throws(Failure) {
        guard quantTables.count + huffmanTables.count < JPEGMarkerWalk.maxTableSegments else { throw .tooManyTables }
        tableBytes += segment.count
        guard tableBytes <= JPEGMarkerWalk.maxTableBytes else { throw .tablesTooLarge }
        if quant { quantTables.append(segment) } else { huffmanTables.append(segment) }
    }

    /// Entropy-coded data: up to a 0xFF that is neither stuffed (FF 00) nor a restart marker.
    /// False when the bytes run out first (`at` stays at an undecided 0xFF).
    private mutating func skipEntropyData(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        while at < n {
            // memchr finds the next 0xFF many bytes a step
            let from = at
            guard let hit = memchr(p + at, 0xff, n - at) else {
                examined += n - from
                at = n
                return false
            }
            let i = UnsafeRawPointer(p).distance(to: hit)
            examined += i + 1 - from
            guard i + 1 < n else { at = i; return false }
            examined += 1
            let next = p[i + 1]
            if next == 0 || (0xd0...0xd7).contains(next) {
                at = i + 2
                if at > limit { return true }   // the caller throws at the limit
                continue
            }
            at = i
            inScan = false
            return true
        }
        return false
    }
}
