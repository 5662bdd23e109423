@_spi(Fuzzing) import RFB

/// The message stream after ServerInit, and the two extensions with state of their own.
let messageTargets: [FuzzTarget] = [
    FuzzTarget(name: "stream", summary: "every server message after ServerInit, all encodings and pseudo-encodings",
               maxLength: 24576, run: { data in
                   var input = FuzzInput(data)
                   let flags = input.u8()
                   let pf = pixelFormat(flags, bigEndian: flags & 4 != 0)
                   let (w, h) = Server.fitted(input.u16(), input.u16())
                   var bytes = Server.hello(w: w, h: h)
                   if !pf.trueColour { bytes += Server.colourMap }
                   runBothWays(fuzzSettings(pixelFormat: pf), bytes + input.rest(), chunk: chunkSize(flags >> 3))
               }, seeds: { StreamSeeds.synthetic }, corpusSeeds: { StreamSeeds.fromCorpus($0) }),
    FuzzTarget(name: "ext-clipboard", summary: "Extended Clipboard: caps, request, peek, notify, provide (zlib), local changes",
               maxLength: 16384, run: runClipboard, seeds: { ClipboardSeeds.all }),
    FuzzTarget(name: "ext-desktopsize", summary: "ExtendedDesktopSize and DesktopSize: layouts, replies, resizes, SetDesktopSize",
               maxLength: 8192, run: runDesktopSize, seeds: { DesktopSizeSeeds.all }),
]

/// `[flags]` then operations `[kind u8][length u16][payload]`: kind 0 a server Extended
/// Clipboard message (wrapped in ServerCutText with a negative length), 1 a local clipboard
/// change (the payload as UTF-8), 2 classic ServerCutText, 3 raw bytes for the engine.
/// Flags bits 0-1 pick the clipboard cap (16 B to 64 KiB), bits 2-4 the chunk size.
@Sendable func runClipboard(_ data: UnsafeBufferPointer<UInt8>) {
    var input = FuzzInput(data)
    let flags = input.u8()
    var s = fuzzSettings()
    s.clipboardLimit = [16, 300, 4096, FuzzLimits.clipboard][Int(flags & 3)]
    let e = makeEngine(s)
    let chunk = chunkSize(flags >> 2)
    if drive(e, Server.hello(w: 16, h: 16), chunk: Int.max).error != nil { return }
    while !input.atEnd {
        let kind = input.u8() & 3
        let payload = Array(input.take(input.u16()))
        let bytes: [UInt8]
        switch kind {
        case 0: bytes = [3, 0, 0, 0] + be32(Int(UInt32(bitPattern: -Int32(payload.count)))) + payload
        case 1: e.sendCutText(String(decoding: payload, as: UTF8.self)); _ = e.takeOutput(); _ = e.takeEvents(); continue
        case 2: bytes = [3, 0, 0, 0] + be32(payload.count) + payload
        default: bytes = payload
        }
        if drive(e, bytes, chunk: chunk).error != nil { return }
    }
}

enum ClipboardSeeds {
    static func op(_ kind: UInt8, _ p: [UInt8]) -> [UInt8] { [kind] + be16(p.count) + p }
    static func ext(_ m: ExtendedClipboard.Message) -> [UInt8] { op(0, ExtendedClipboard.payload(m)) }
    static var all: [[UInt8]] {
        let caps = ext(.caps(formats: [.text, .html], actions: [.request, .peek, .notify, .provide], sizes: [4096, 100]))
        let text = ExtendedClipboard.wireText("héllo\nwörld")
        return [
            [3] + caps + ext(.provide([.init(format: .text, data: text)])) + ext(.notify(.text)) + ext(.peek),
            [3] + caps + op(1, Array("local text".utf8)) + ext(.request(.text)) + ext(.request(.text)),
            [0] + caps + ext(.provide([.init(format: .text, data: Array(repeating: 0x41, count: 40)), .init(format: .html, data: [1, 2])])),
            [3] + ext(.caps(formats: [], actions: [.provide], sizes: [])) + op(1, Array(repeating: 0x62, count: 200)),
            [7] + op(2, Array("latin-1 \u{e9}".utf8)) + op(2, Array(repeating: 0x41, count: 400)),
            [3] + caps + ext(.notify([])) + ext(.unknown(flags: 1 << 30)) + op(0, [0, 0]),
            [2] + caps + ext(.provide([.init(format: .text, data: [0xff, 0xfe, 0])])),
        ]
    }
}

/// `[fb width u16][fb height u16]` then operations `[op u8]`: 0 an ExtendedDesktopSize rect
/// (`[reason u16][status u16][w u16][h u16][screens u8]`, 3 padding bytes, 16 per screen),
/// 1 a DesktopSize rect (`[w u16][h u16]`), 2 our SetDesktopSize (`[w u16][h u16][keep u8]`:
/// odd keeps the server's screens), 3 an RRE fill (`[x y w h, u16 each]`: drawing after a
/// resize), 4 raw bytes (`[n u8]` and n bytes).
@Sendable func runDesktopSize(_ data: UnsafeBufferPointer<UInt8>) {
    var input = FuzzInput(data)
    let (w, h) = Server.fitted(input.u16(), input.u16())
    let e = makeEngine(fuzzSettings())
    if drive(e, Server.hello(w: w, h: h), chunk: Int.max).error != nil { return }
    while !input.atEnd {
        let bytes: [UInt8]
        switch input.u8() % 5 {
        case 0:
            let x = input.u16(), y = input.u16(), rw = input.u16(), rh = input.u16()
            let n = Int(input.u8())
            bytes = Server.update(x, y, rw, rh, Encoding.extendedDesktopSize, [UInt8(n), 0, 0, 0] + input.exactly(16 * n))
        case 1:
            bytes = Server.update(0, 0, input.u16(), input.u16(), Encoding.desktopSize, [])
        case 2:
            let rw = input.u16(), rh = input.u16(), keep = input.u8() & 1 == 1
            try? e.requestDesktopSize(width: rw, height: rh, screens: keep ? e.server.screenLayout?.screens : nil)
            _ = e.takeOutput(); _ = e.takeEvents()
            continue
        case 3:
            let x = input.u16(), y = input.u16(), rw = input.u16(), rh = input.u16()
            bytes = Server.update(x, y, rw, rh, Encoding.rre, be32(1) + [1, 2, 3, 0, 4, 5, 6, 0] + be16(0) + be16(0) + be16(rw) + be16(rh))
        default:
            bytes = Array(input.take(Int(input.u8())))
        }
        if drive(e, bytes, chunk: Int.max).error != nil { return }
    }
}

enum DesktopSizeSeeds {
    static func eds(_ reason: Int, _ status: Int, _ w: Int, _ h: Int, _ screens: [(Int, Int, Int, Int, Int)]) -> [UInt8] {
        cat([0], be16(reason), be16(status), be16(w), be16(h), [UInt8(screens.count)],
            screens.flatMap { s in cat(be32(s.0), be16(s.1), be16(s.2), be16(s.3), be16(s.4), be32(0)) })
    }
    static func fill(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> [UInt8] { cat([3], be16(x), be16(y), be16(w), be16(h)) }
    static var all: [[UInt8]] {
        let size = be16(64) + be16(48)
        return [
            size + eds(0, 0, 64, 48, [(0, 0, 0, 64, 48)]) + fill(0, 0, 64, 48),
            size + eds(0, 0, 128, 32, [(1, 0, 0, 64, 32), (2, 64, 0, 64, 32)]) + fill(60, 0, 68, 32) + [2] + be16(100) + be16(40) + [1],
            size + eds(0, 0, 64, 48, [(0, 0, 0, 64, 48)]) + [2] + be16(32) + be16(32) + [0] + eds(1, 0, 32, 32, [(0, 0, 0, 32, 32)]),
            size + eds(0, 0, 64, 48, [(0, 0, 0, 64, 48)]) + eds(1, 3, 0, 0, []) + eds(2, 0, 20, 20, [(5, 0, 0, 20, 20)]),
            size + eds(0, 0, 64, 48, [(0, 0, 0, 65, 48)]) ,
            size + eds(0, 0, 64, 48, [(0, 0, 0, 32, 48), (0, 32, 0, 32, 48)]),
            size + [1] + be16(200) + be16(100) + fill(150, 50, 50, 50) + [1] + be16(0) + be16(0) + fill(0, 0, 1, 1),
            size + eds(5, 0, 64, 48, [(0, 0, 0, 64, 48)]),
            size + [0] + be16(0) + be16(0) + be16(64) + be16(48) + [200],
            size + [4, 3, 2, 0, 0],
        ]
    }
}
