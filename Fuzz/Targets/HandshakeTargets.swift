@_spi(Fuzzing) import RFB

/// The handshake from the client's side: the whole of it from the server's banner, and each
/// security type's own server messages once the type is chosen (the harness sends the banner
/// and the one-type list). Inputs are `[mode][server bytes]`: mode bits 0-2 pick the chunk size,
/// and a run fed in pieces must match the run fed whole. Credentials are asked for and
/// answered (the rolled-back, re-parsed path), identities trusted. VeNCrypt stops where TLS
/// starts: what follows would be TLS records, OpenSSL's to parse, not ours.
let handshakeTargets: [FuzzTarget] = [
    FuzzTarget(name: "handshake", summary: "version, security list, any type, SecurityResult, ServerInit and on",
               maxLength: 4096, run: { data in
                   var input = FuzzInput(data)
                   let mode = input.u8()
                   runBothWays(fuzzSettings(), Array(input.rest()), chunk: chunkSize(mode), compareOutput: false,
                               stopAtChannel: true)
               }, seeds: { HandshakeSeeds.full.flatMap { [[0] + $0, [1] + $0] } }),
    securityTarget("sec-none", type: SecurityType.none, summary: "None: SecurityResult, failure reason, ServerInit",
                   seeds: HandshakeSeeds.none),
    securityTarget("sec-vncauth", type: SecurityType.vncAuth, summary: "VncAuth: challenge, SecurityResult, reason",
                   seeds: HandshakeSeeds.vncAuth),
    securityTarget("sec-vencrypt", type: SecurityType.veNCrypt,
                   summary: "VeNCrypt: version, subtypes, TLS ack (up to TLS); Plain, None and VncAuth inside",
                   seeds: HandshakeSeeds.veNCrypt),
    securityTarget("sec-ard", type: SecurityType.appleRemoteDesktop, summary: "Apple Remote Desktop: DH parameters, result",
                   seeds: HandshakeSeeds.ard),
    FuzzTarget(name: "sec-rsaaes", summary: "RSA-AES (RA2, RA2ne, _256): server key, server random (plaintext part)",
               maxLength: 4096, run: { data in
                   var input = FuzzInput(data)
                   let mode = input.u8()
                   let type = rsaAESTypes[Int(mode >> 3 & 3)]
                   let s = questionSettings(type)
                   runBothWays(s, Server.banner38 + [1, type] + input.rest(), chunk: chunkSize(mode), compareOutput: false)
               }, seeds: { HandshakeSeeds.rsaAES.flatMap { [[0] + $0, [1 | 3 << 3] + $0] } }),
]

let rsaAESTypes: [UInt8] = [SecurityType.ra2, SecurityType.ra2ne, SecurityType.ra2_256, SecurityType.ra2ne_256]

/// Settings accepting only `type`, with no stored credentials: the engine asks and the harness answers.
func questionSettings(_ type: UInt8) -> ClientSettings {
    // VeNCrypt: every subtype, and None and VncAuth as subtypes (no name parses to them), so the
    // inner VncAuth and None paths, otherwise reached only inside TLS, run in the clear
    var s = fuzzSettings(methods: type == SecurityType.veNCrypt
                         ? SecurityMethod.all.filter { if case .veNCrypt = $0 { return true } else { return false } }
                           + [.veNCrypt(2), .veNCrypt(1)]
                         : [.type(type)])
    s.password = nil
    s.username = nil
    return s
}

func securityTarget(_ name: String, type: UInt8, summary: String, seeds: [[UInt8]]) -> FuzzTarget {
    FuzzTarget(name: name, summary: summary, maxLength: 4096, run: { data in
        var input = FuzzInput(data)
        let mode = input.u8()
        let tls = type == SecurityType.veNCrypt
        // VeNCrypt is drip-fed, so the run stops exactly where TLS would begin
        runBothWays(questionSettings(type), Server.banner38 + [1, type] + input.rest(), chunk: tls ? 1 : chunkSize(mode),
                    compareOutput: type != SecurityType.appleRemoteDesktop, stopAtChannel: tls)
    }, seeds: { seeds.flatMap { [[0] + $0, [1] + $0, [3] + $0] } })
}

/// Hand-made server sides of each handshake (without the mode byte).
enum HandshakeSeeds {
    static let result0 = be32(0)
    static let initTail = Server.serverInit(w: 64, h: 32) + Server.update(0, 0, 2, 2, Encoding.raw, [UInt8](repeating: 9, count: 16))
    static func reason(_ s: String) -> [UInt8] { be32(s.utf8.count) + Array(s.utf8) }
    static let challenge = (0..<16).map { UInt8($0 * 17) }

    static let none: [[UInt8]] = [
        result0 + initTail,
        be32(1) + reason("no"),
        result0 + be16(3) + be16(2) + PixelFormat.rgb565.wireBytes + reason("desk\u{1b}[2Jtop"),
    ]
    static let vncAuth: [[UInt8]] = [
        challenge + result0 + initTail,
        challenge + be32(1) + reason("bad password"),
        challenge + be32(2) + reason("too many"),
    ]
    static let veNCrypt: [[UInt8]] = [
        [0, 2, 0, 1] + be32(256) + result0 + initTail,                        // Plain
        [0, 2, 0, 2] + be32(2) + be32(1) + challenge + result0 + initTail,      // VncAuth as a subtype
        [0, 2, 0, 1] + be32(1) + result0 + initTail,                          // None as a subtype
        [0, 2, 0, 3] + be32(257) + be32(258) + be32(259) + [1],               // anonymous TLS
        [0, 2, 0, 1] + be32(262) + [1],                                       // X509 without a name
        [0, 2, 0, 1] + be32(257) + [0],                                       // TLS refused
        [0, 1], [0, 2, 1], [0, 2, 0, 0],
    ]
    /// RFC 2409's 1024-bit MODP prime (what macOS uses) and a server value inside (1, p-1).
    static let prime: [UInt8] = hex("ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404ddef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7edee386bfb5a899fa5ae9f24117c4b1fe649286651ece65381ffffffffffffffff")
    static let ard: [[UInt8]] = [
        [0, 2, 0, 128] + prime + [0x45] + [UInt8](repeating: 0x71, count: 127) + result0 + initTail,
        [0, 2, 0, 128] + prime + [UInt8](repeating: 0, count: 127) + [1],    // a server value of 1
        [0, 5, 0, 128] + prime + [0x45] + [UInt8](repeating: 0x71, count: 127) + be32(1) + reason("denied"),
    ]
    /// The fixed server key as RSA-AES sends it, then a server random of the right length.
    static let serverKey: [UInt8] = be32(1024) + (try! FuzzKeys.server.component("n", size: 128))
        + (try! FuzzKeys.server.component("e", size: 128))
    static let rsaAES: [[UInt8]] = [
        serverKey + be16(128) + [UInt8](repeating: 0x42, count: 128),
        serverKey + be16(127),
        be32(512), be32(9000), be32(1024) + [UInt8](repeating: 0, count: 256),
    ]
    /// From the banner: each RFB version, type list and failure.
    static let full: [[UInt8]] = [
        Server.banner38 + [1, 1] + result0 + initTail,
        Server.banner38 + [1, 2] + challenge + result0 + initTail,
        Server.banner38 + [0] + reason("too many connections"),
        Server.banner38 + [8, 5, 6, 19, 30, 2, 1, 129, 130] + serverKey,
        Server.banner38 + [2, 19, 1] + [0, 2, 0, 1] + be32(256) + result0 + initTail,
        Array("RFB 003.889\n".utf8) + [1, 30] + ard[0],
        Array("RFB 003.003\n".utf8) + be32(1) + initTail,
        Array("RFB 003.003\n".utf8) + be32(2) + challenge + result0 + initTail,
        Array("RFB 003.003\n".utf8) + be32(0) + reason("refused"),
        Array("RFB 003.007\n".utf8) + [2, 1, 2] + initTail,
        Array("RFB 004.001\n".utf8) + [1, 1] + result0 + initTail,
        Array("RFB 002.002\n".utf8),
    ]
}

func hex(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var i = s.startIndex
    while i < s.endIndex {
        let j = s.index(i, offsetBy: 2)
        out.append(UInt8(s[i..<j], radix: 16)!)
        i = j
    }
    return out
}
