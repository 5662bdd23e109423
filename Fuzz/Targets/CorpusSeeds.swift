@_spi(Fuzzing) import RFB

/// Seeds split from the recorded sessions: windows of consecutive rects (decoder targets) or
/// messages (the stream target), moved into a framebuffer within the fuzz cap. Zlib and ZRLE
/// rects are inflated on the recording's stream and deflated again on a fresh one per window,
/// so every window decodes; Tight keeps four streams whose state cannot be rebuilt that
/// simply, so it gives its first window whole and, later, only fill and JPEG rects.
enum CorpusSeeds {
    // Small windows: a run's cost grows with its input, and the fuzzer grows inputs as it needs.
    static let windowBytes = 6 * 1024
    static let windowRects = 12
    static let windowsPerRecording = 24

    static let zlibKinds: Set<Int32> = [Encoding.zlib, Encoding.zrle]

    /// Inflates the Zlib and ZRLE rects of `rects` (in stream order, one stream per encoding);
    /// rects after a zlib error are dropped.
    static func inflate(_ rects: [RecordedRect]) -> [RecordedRect] {
        var streams: [Int32: Inflater] = [:]
        var out: [RecordedRect] = []
        for var r in rects {
            if zlibKinds.contains(r.encoding) {
                let z = streams[r.encoding] ?? Inflater()
                streams[r.encoding] = z
                guard r.body.count >= 4, let raw = z.inflateAll(Array(r.body.dropFirst(4))) else { break }
                r.inflated = raw
            }
            out.append(r)
        }
        return out
    }

    /// Tight rects that need no stream state: fill (0x8x) and JPEG (0x9x).
    static func stateless(_ r: RecordedRect) -> Bool {
        r.encoding != Encoding.tight || (r.body.first.map { $0 >> 4 == 8 || $0 >> 4 == 9 } ?? false)
    }

    /// `r` if it fits the cap alone; too large, Raw rects are cut to their first rows and RRE
    /// rects to their top-left corner (subrects clipped), others dropped.
    static func cropped(_ r: RecordedRect) -> RecordedRect? {
        let cap = FuzzLimits.framebufferPixels
        if r.w * r.h <= cap || !CorpusRecordings.realEncodings.contains(r.encoding) { return r }
        var c = r
        switch r.encoding {
        case Encoding.raw where r.w <= cap:
            c.h = cap / r.w
            c.body = Array(r.body.prefix(c.w * c.h * 4))
        case Encoding.rre where r.body.count >= 8:
            c.w = min(r.w, 1024); c.h = min(r.h, cap / c.w)
            var subrects: [UInt8] = []
            var n = 0, p = 8
            while p + 12 <= r.body.count {
                let v = r.body[(p + 4)..<(p + 12)].map(Int.init)
                let x = v[0] << 8 | v[1], y = v[2] << 8 | v[3], w = v[4] << 8 | v[5], h = v[6] << 8 | v[7]
                let cw = min(x + w, c.w) - x, ch = min(y + h, c.h) - y
                if x < c.w && y < c.h && cw > 0 && ch > 0 {
                    subrects += cat(Array(r.body[p..<(p + 4)]), be16(x), be16(y), be16(cw), be16(ch))
                    n += 1
                }
                p += 12
            }
            c.body = cat(be32(n), Array(r.body[4..<8]), subrects)
        default:
            return nil
        }
        return c
    }

    /// The framebuffer for a window's (cropped, real) rects: their widest by their tallest,
    /// the tallest left out while that is over the cap. Rects larger than it are dropped.
    static func frame(_ rects: [RecordedRect]) -> (w: Int, h: Int) {
        var hs = rects.map(\.h).sorted(), ws = rects.map(\.w)
        while let h = hs.last {
            let w = ws.max()!
            if w * h <= FuzzLimits.framebufferPixels { return (w, h) }
            hs.removeLast()
            ws = rects.filter { $0.h <= hs.last ?? 0 }.map(\.w)
            if ws.isEmpty { break }
        }
        return (1, 1)
    }

    /// `r` moved inside a `w`x`h` framebuffer, its body final (zlib data deflated on `z`).
    static func placed(_ r: RecordedRect, _ w: Int, _ h: Int, _ z: inout [Int32: Deflater]) -> RecordedRect {
        var p = r
        p.x = r.x % (w - r.w + 1)
        p.y = r.y % (h - r.h + 1)
        if r.encoding == Encoding.copyRect, r.body.count == 4 {
            let sx = Int(r.body[0]) << 8 | Int(r.body[1]), sy = Int(r.body[2]) << 8 | Int(r.body[3])
            p.body = be16(sx % (w - r.w + 1)) + be16(sy % (h - r.h + 1))
        }
        if let raw = r.inflated {
            let d = z[r.encoding] ?? Deflater()
            z[r.encoding] = d
            let c = d.compress(raw)
            p.body = be32(c.count) + c
        }
        return p
    }

    /// Consecutive runs of `items` spread over the whole list: at most `windowsPerRecording`,
    /// each up to `windowBytes` (by `size`) and `windowRects` items.
    static func windows<T>(_ items: [T], size: (T) -> Int) -> [(first: Bool, items: [T])] {
        guard !items.isEmpty else { return [] }
        let stride = max(1, items.count / windowsPerRecording)
        var out: [(Bool, [T])] = []
        for start in Swift.stride(from: 0, to: items.count, by: stride) {
            var w: [T] = [], bytes = 0
            for item in items[start...] {
                if !w.isEmpty && (bytes + size(item) > windowBytes || w.count == windowRects) { break }
                w.append(item); bytes += size(item)
            }
            out.append((start == 0, w))
        }
        return out
    }
}

extension DecoderSeeds {
    /// Windows of the recorded rects in `encoding`, as decoder-target inputs.
    static func fromCorpus(_ encoding: Int32, _ corpus: CorpusRecordings) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for (_, messages) in corpus.recordings {
            let all = messages.flatMap { m -> [RecordedRect] in if case .update(let rs) = m { return rs } else { return [] } }
            let rects = CorpusSeeds.inflate(all.filter { $0.encoding == encoding })
            for (first, window) in CorpusSeeds.windows(rects, size: { $0.body.count }) {
                let rects = (first ? window : window.filter(CorpusSeeds.stateless)).compactMap(CorpusSeeds.cropped)
                let (w, h) = CorpusSeeds.frame(rects)
                let kept = rects.filter { $0.w <= w && $0.h <= h }
                guard !kept.isEmpty else { continue }
                var z: [Int32: Deflater] = [:]
                var placed: [(Int, Int, Int, Int, [UInt8])] = []
                for r in kept {
                    let p = CorpusSeeds.placed(r, w, h, &z)
                    // CopyRect's harness sends every other rect as Raw: a small one first
                    if encoding == Encoding.copyRect { placed.append((0, 0, 2, 2, [UInt8](repeating: 0x5a, count: 16))) }
                    placed.append((p.x, p.y, p.w, p.h, p.body))
                }
                out.append(decoderInput(flags: 0, fb: (w, h), placed))
            }
        }
        // a few drip-fed, so the fuzzer starts with resumed decodes too
        return out + out.prefix(4).map { [1 << 3] + $0.dropFirst() }
    }
}

enum StreamSeeds {
    /// Hand-made: every pseudo-encoding and non-update message once.
    static var synthetic: [[UInt8]] {
        let cursor = Server.rect(1, 1, 2, 2, Encoding.cursor) + [UInt8](repeating: 0x7f, count: 16) + [0xc0, 0x40]
        let name = Server.rect(0, 0, 0, 0, Encoding.desktopName) + be32(4) + Array("desk".utf8)
        let eds = Server.rect(0, 0, 32, 16, Encoding.extendedDesktopSize) + [1, 0, 0, 0] + be32(7) + be16(0) + be16(0) + be16(32) + be16(16) + be32(0)
        let acks = Server.rect(0, 0, 0, 0, Encoding.qemuExtendedKeyEvent) + Server.rect(0, 0, 0, 0, Encoding.extendedMouseButtons)
        let update: [UInt8] = [0, 0, 0xff, 0xff] + cursor + name + eds + acks + Server.rect(0, 0, 0, 0, Encoding.lastRect)
        let messages: [UInt8] = update + [2] + [3, 0, 0, 0] + be32(5) + Array("hello".utf8) + [1, 0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6]
            + [0, 0, 0, 1] + Server.rect(0, 0, 40, 20, Encoding.desktopSize) + [0, 0, 0, 0]
        let size = be16(32) + be16(16)
        return [[0] + size + messages, [1 << 3] + size + messages, [3] + size + messages]
    }

    /// Windows of the recorded message streams.
    static func fromCorpus(_ corpus: CorpusRecordings) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for (_, messages) in corpus.recordings {
            // inflate every Zlib/ZRLE rect on its recording's streams, keeping the message structure
            let all = CorpusSeeds.inflate(messages.flatMap { m -> [RecordedRect] in if case .update(let rs) = m { return rs } else { return [] } })
            var next = 0
            var inflated: [RecordedMessage] = []
            for m in messages {
                guard case .update(let rs) = m else { inflated.append(m); continue }
                guard next + rs.count <= all.count else { break }
                inflated.append(.update(Array(all[next..<(next + rs.count)])))
                next += rs.count
            }
            let size: (RecordedMessage) -> Int = { m in
                switch m { case .update(let rs): return rs.reduce(4) { $0 + 12 + $1.body.count }; case .other(let b): return b.count }
            }
            for (first, window) in CorpusSeeds.windows(inflated, size: size) {
                out.append(streamSeed(window, keepTight: first))
            }
        }
        return out.filter { $0.count > 5 }
    }

    /// One window as a stream-target input: resizes left out (the fuzz cap would refuse them),
    /// rects that do not fit dropped, the rest moved inside.
    static func streamSeed(_ window: [RecordedMessage], keepTight: Bool) -> [UInt8] {
        let resize: Set<Int32> = [Encoding.desktopSize, Encoding.extendedDesktopSize]
        func wanted(_ r: RecordedRect) -> Bool { !resize.contains(r.encoding) && (keepTight || CorpusSeeds.stateless(r)) }
        let real = window.flatMap { m -> [RecordedRect] in
            if case .update(let rs) = m { return rs.filter { CorpusRecordings.realEncodings.contains($0.encoding) && wanted($0) } }
            return []
        }
        let (w, h) = CorpusSeeds.frame(real.compactMap(CorpusSeeds.cropped))
        var z: [Int32: Deflater] = [:]
        var bytes: [UInt8] = []
        for m in window {
            switch m {
            case .other(let b): bytes += b
            case .update(let rs):
                var kept: [RecordedRect] = []
                var lastRect = false
                for r in rs where wanted(r) {
                    if r.encoding == Encoding.lastRect { lastRect = true; continue }
                    if CorpusRecordings.realEncodings.contains(r.encoding) {
                        guard let c = CorpusSeeds.cropped(r), c.w <= w && c.h <= h else { continue }
                        kept.append(CorpusSeeds.placed(c, w, h, &z))
                    } else {
                        kept.append(r)
                    }
                }
                if lastRect { kept.append(RecordedRect(x: 0, y: 0, w: 0, h: 0, encoding: Encoding.lastRect, body: [])) }
                bytes += [0, 0] + be16(lastRect ? 0xffff : kept.count)
                for r in kept { bytes += Server.rect(r.x, r.y, r.w, r.h, r.encoding) + r.body }
            }
        }
        return [0] + be16(w) + be16(h) + bytes
    }
}
