@_spi(Fuzzing) import RFB

/// RSA-AES past its key exchange: the harness plays the server with a fixed key, so the
/// messages inside AES-EAX (key hash, subtype, SecurityResult; for RA2 the whole session) are
/// fuzzed, and for the "ne" types the switch back to plain bytes. Input:
/// `[mode][count u8]` then `count` messages `[u16 length][plaintext]`, each sealed as one AES-EAX
/// message after the server's correct key hash, then the rest sent raw (plain RFB once an "ne"
/// type has dropped the encryption; garbage framing for the others).
/// Mode bits 0-2 pick the chunk size, bits 3-4 the type; bit 5 sends a wrong key hash.
let rsaAESInnerTarget = FuzzTarget(
    name: "sec-rsaaes-inner", summary: "RSA-AES inside AES-EAX: key hash, subtype, SecurityResult, session; RA2ne's switch back",
    maxLength: 8192, run: { data in
        var input = FuzzInput(data)
        let mode = input.u8()
        let type = rsaAESTypes[Int(mode >> 3 & 3)]
        var messages: [[UInt8]] = []
        for _ in 0..<input.u8() { let n = input.u16(); messages.append(Array(input.take(n))) }
        guard let bytes = try? RSAAESServer(type: type).handshake(messages, raw: Array(input.rest()), wrongHash: mode & 32 != 0) else { return }
        runBothWays(questionSettings(type), bytes, chunk: chunkSize(mode), compareOutput: false)
    }, seeds: { RSAAESServer.seeds })

struct RSAAESServer {
    let type: UInt8
    var bits256: Bool { type == SecurityType.ra2_256 || type == SecurityType.ra2ne_256 }
    var keepsEncryption: Bool { type == SecurityType.ra2 || type == SecurityType.ra2_256 }

    static let serverRandom = [UInt8](repeating: 0xa5, count: 32)
    /// The server random encrypted to our fixed key, once per size (PKCS#1 v1.5 is randomised;
    /// any valid encryption will do).
    static let encryptedRandom16 = try! FuzzKeys.client.encrypt(Array(serverRandom.prefix(16)))
    static let encryptedRandom32 = try! FuzzKeys.client.encrypt(serverRandom)
    static let clientKey = be32(1024) + (try! FuzzKeys.client.component("n", size: 128)) + (try! FuzzKeys.client.component("e", size: 128))

    /// Session keys and the server's key hash, the same for every input of a size (worked out
    /// once: they were a twelfth of a run).
    static let keys128 = keys(bits256: false), keys256 = keys(bits256: true)
    static func keys(bits256: Bool) -> (toClient: [UInt8], toServer: [UInt8], hash: [UInt8]) {
        let n = bits256 ? 32 : 16
        let (toClient, toServer) = RSAAESKeys.sessionKeys(clientRandom: Array(FuzzKeys.secret.prefix(n)),
                                                             serverRandom: Array(serverRandom.prefix(n)), bits: n * 8)
        // the server hashes its own key first
        return (toClient, toServer, RSAAESKeys.keyHash(HandshakeSeeds.serverKey + clientKey, bits256: bits256))
    }

    /// The server's bytes from its banner: key, encrypted random, then the sealed messages.
    func handshake(_ messages: [[UInt8]], raw: [UInt8], wrongHash: Bool) throws -> [UInt8] {
        let (toClient, toServer, keyHash) = bits256 ? RSAAESServer.keys256 : RSAAESServer.keys128
        let channel = try EAXChannel(receiveKey: toServer, sendKey: toClient)
        var hash = keyHash
        if wrongHash { hash[0] ^= 1 }
        try channel.writePlain(hash)
        for m in messages where !m.isEmpty { try channel.writePlain(m) }
        let random = bits256 ? RSAAESServer.encryptedRandom32 : RSAAESServer.encryptedRandom16
        return cat(Server.banner38, [1, type], HandshakeSeeds.serverKey, be16(random.count), random, channel.takeRaw(), raw)
    }

    static var seeds: [[UInt8]] {
        let after = HandshakeSeeds.result0 + HandshakeSeeds.initTail
        func msgs(_ ms: [[UInt8]]) -> [UInt8] { [UInt8(ms.count)] + ms.flatMap { be16($0.count) + $0 } }
        var out: [[UInt8]] = []
        for t in 0..<4 {
            let type = rsaAESTypes[t], m = UInt8(t << 3)
            let keeps = type == SecurityType.ra2 || type == SecurityType.ra2_256
            // user and password, or password only; RA2 keeps the encryption, RA2ne goes plain
            out.append([m] + (keeps ? msgs([[1], after]) : msgs([[1]]) + after))
            out.append([m | 1] + (keeps ? msgs([[2], after]) : msgs([[2]]) + after))
            out.append([m] + msgs([[1] + after]))
            out.append([m | 32] + msgs([[1]]))
            out.append([m] + msgs([[3]]))
            out.append([m] + msgs([[1], be32(1) + HandshakeSeeds.reason("denied")]))
        }
        return out
    }
}
