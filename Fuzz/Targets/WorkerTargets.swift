@_spi(Fuzzing) import RFB

/// The decoders that hand rects to worker threads (`decodeThreads` above 1), each rect they can
/// hand over handed, however small: the same input as the decoder targets, decoded by an engine
/// with two workers and fed in pieces as the flags say, must do exactly what one thread does
/// fed whole (events, error, pixels). Flag bit 6 puts all rects in one update (rects in flight
/// side by side, meeting overlaps and barriers), where a rect whose body is exactly 4 bytes is
/// a CopyRect (its source may be a rect still on a worker); bit 7 gives the jobs in flight a
/// 16 KiB budget (rects past it stay on the session thread) and the viewer's other rules (the
/// newest job held until the next rect or the input's end; ZRLE's cheap rects painted at home).
let workerTargets: [FuzzTarget] = ([
    ("mt-rre", Encoding.rre, "RRE on worker threads: whole rects copied, subrect counts past the area kept home"),
    ("mt-corre", Encoding.coRRE, "CoRRE on worker threads"),
    ("mt-hextile", Encoding.hextile, "Hextile on worker threads: rects measured tile by tile, copied whole"),
    ("mt-zrle", Encoding.zrle, "ZRLE on worker threads: inflated in order, tiles painted on a worker"),
    ("mt-tight", Encoding.tight, "Tight on worker threads: JPEG decompressed and basic rects painted on workers"),
] as [(String, Int32, String)]).map { name, encoding, summary in
    FuzzTarget(name: name, summary: summary, maxLength: 16384, run: { runOnWorkers(encoding, $0) },
               seeds: { DecoderSeeds.synthetic(encoding) + DecoderSeeds.synthetic(encoding).map { [$0[0] | 1 << 6] + $0.dropFirst() } },
               corpusSeeds: { c in DecoderSeeds.fromCorpus(encoding, c).flatMap { [$0, [$0[0] | 1 << 6] + $0.dropFirst()] } })
}

/// Jobs in flight may hold this much with flag bit 7 (the viewer allows 64 MiB).
let fuzzJobBudget = 16 * 1024

func runOnWorkers(_ encoding: Int32, _ data: UnsafeBufferPointer<UInt8>) {
    var input = FuzzInput(data)
    let flags = input.u8()
    let pf = pixelFormat(flags, bigEndian: flags & 4 != 0)
    let (w, h) = Server.fitted(input.u16(), input.u16())
    var bytes = Server.hello(w: w, h: h)
    if !pf.trueColour { bytes += Server.colourMap }
    var rects: [(x: Int, y: Int, w: Int, h: Int, enc: Int32, body: UnsafeBufferPointer<UInt8>)] = []
    while !input.atEnd {
        let n = input.u16()
        let x = input.u16(), y = input.u16(), rw = input.u16(), rh = input.u16()
        let body = input.view(n)
        let copy = flags & 1 << 6 != 0 && body.count == 4
        rects.append((x, y, rw, rh, copy ? Encoding.copyRect : encoding, body))
    }
    if flags & 1 << 6 != 0 {
        Server.appendUpdateHeader(&bytes, rects: rects.count)
        for r in rects { Server.appendRect(&bytes, r.x, r.y, r.w, r.h, r.enc, r.body) }
    } else {
        for r in rects { Server.appendUpdate(&bytes, r.x, r.y, r.w, r.h, r.enc, r.body) }
    }
    var s = fuzzSettings(pixelFormat: pf)
    s.encodings = [encoding, Encoding.copyRect, Encoding.raw]
    let one = drive(makeEngine(s), bytes, chunk: Int.max, record: true)
    s.decodeThreads = 3
    let e = makeEngine(s)
    e.offloadEveryRect(budgetBytes: flags & 1 << 7 != 0 ? fuzzJobBudget : nil, viewerRules: flags & 1 << 7 != 0)
    let workers = drive(e, bytes, chunk: chunkSize(flags >> 3), record: true)
    if one.cut || workers.cut { return }
    // after a failure, rects behind the failed one may have drawn until the next barrier (the
    // same message is reported): pixels are compared only when both ran clean
    var a = one, b = workers
    if a.error != nil || b.error != nil { a.framebuffer = nil; b.framebuffer = nil }
    if a != b {
        fatalError("on worker threads the engine did otherwise than on one:\n  workers: \(describe(workers))\n  one:     \(describe(one))")
    }
}

extension Server {
    static func appendUpdateHeader(_ out: inout [UInt8], rects n: Int) {
        out.append(0); out.append(0); out.append(UInt8(n >> 8 & 0xff)); out.append(UInt8(n & 0xff))
    }

    static func appendRect(_ out: inout [UInt8], _ x: Int, _ y: Int, _ w: Int, _ h: Int, _ enc: Int32,
                           _ body: UnsafeBufferPointer<UInt8>) {
        func u16(_ v: Int) { out.append(UInt8(v >> 8 & 0xff)); out.append(UInt8(v & 0xff)) }
        u16(x); u16(y); u16(w); u16(h)
        let e = UInt32(bitPattern: enc)
        out.append(UInt8(e >> 24)); out.append(UInt8(e >> 16 & 0xff)); out.append(UInt8(e >> 8 & 0xff)); out.append(UInt8(e & 0xff))
        out.append(contentsOf: body)
    }
}
