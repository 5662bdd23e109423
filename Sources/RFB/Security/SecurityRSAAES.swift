import COpenSSL
import Foundation

/// RSA-AES (RA2 5, RA2ne 6, RA2_256 129, RA2ne_256 130) as TigerVNC 1.13+ and RealVNC speak it:
/// the server's RSA key (trust on first use, fingerprint in RealVNC's form), our own RSA key of
/// the same size, a random from each side encrypted to the other's key (PKCS#1 v1.5), session
/// keys SHA-1 (128-bit AES) or SHA-256 (256-bit AES) of the two randoms, both keys hashed and
/// compared through the new AES-EAX channel, then a subtype byte and the credentials.
/// The "ne" types drop the encryption after the handshake; the others keep it for the session.
final class RSAAESHandler: SecurityHandler {
    /// TigerVNC's limits on the server key, in bits.
    static let minKeyBits = 1024, maxKeyBits = 8192
    static let subtypeUserPass: UInt8 = 1, subtypePass: UInt8 = 2

    let type: UInt8
    /// Fuzzing: our key and random, given (see `FixedKeys`).
    private let fixed: FixedKeys?
    private let aesBits: Int
    private let keepEncryption: Bool
    private enum State { case serverKey, serverRandom, hash, subtype }
    private var state = State.serverKey
    private var serverBits = 0
    private var serverN: [UInt8] = [], serverE: [UInt8] = []
    private var clientN: [UInt8] = [], clientE: [UInt8] = []
    private var clientKey: RSAKey?
    private var serverKey: RSAKey?
    private var clientRandom: [UInt8] = []

    init(type: UInt8, fixed: FixedKeys? = nil) {
        self.type = type
        self.fixed = fixed
        aesBits = (type == SecurityType.ra2_256 || type == SecurityType.ra2ne_256) ? 256 : 128
        keepEncryption = type == SecurityType.ra2 || type == SecurityType.ra2_256
    }

    func step(_ r: inout ByteReader, _ ctx: SecurityContext) throws -> SecurityProgress {
        switch state {
        case .serverKey:
            try r.require(4)
            let bits = Int(r.base[r.pos]) << 24 | Int(r.base[r.pos + 1]) << 16 | Int(r.base[r.pos + 2]) << 8 | Int(r.base[r.pos + 3])
            guard bits >= RSAAESHandler.minKeyBits else { throw ProtocolError("RSA-AES: server key of \(bits) bits is too short (at least \(RSAAESHandler.minKeyBits))") }
            guard bits <= RSAAESHandler.maxKeyBits else { throw ProtocolError("RSA-AES: server key of \(bits) bits is too long (at most \(RSAAESHandler.maxKeyBits))") }
            let size = (bits + 7) / 8
            try r.require(4 + 2 * size)
            r.pos += 4
            serverBits = bits
            serverN = Array(UnsafeBufferPointer(start: try r.bytes(size), count: size))
            serverE = Array(UnsafeBufferPointer(start: try r.bytes(size), count: size))
            let sk = try RSAKey.server(n: serverN, e: serverE, cache: fixed?.cache)
            serverKey = sk
            try verifyServer(ctx)
            // Our key, as long as the server's.
            let ck = try fixed?.rsa ?? RSAKey(generateBits: bits)
            clientKey = ck
            clientN = try ck.component("n", size: size)
            clientE = try ck.component("e", size: size)
            ctx.send(secBE32(UInt32(bits)) + clientN + clientE)
            clientRandom = try fixed?.secret(aesBits / 8) ?? RSAKey.random(aesBits / 8)
            let enc = try sk.encrypt(clientRandom, cache: fixed?.cache)
            ctx.send([UInt8(enc.count >> 8), UInt8(enc.count & 0xff)] + enc)
            state = .serverRandom
        case .serverRandom:
            try r.require(2)
            let len = Int(r.base[r.pos]) << 8 | Int(r.base[r.pos + 1])
            guard len == clientN.count else { throw ProtocolError("RSA-AES: server random is \(len) bytes, not the \(clientN.count) of our key") }
            try r.require(2 + len)
            r.pos += 2
            let enc = Array(UnsafeBufferPointer(start: try r.bytes(len), count: len))
            guard let ck = clientKey, let serverRandom = try? ck.decrypt(enc, cache: fixed?.cache), serverRandom.count == aesBits / 8 else {
                throw ProtocolError("RSA-AES: cannot decrypt the server's random")
            }
            let (rxKey, txKey) = RSAAESHandler.sessionKeys(clientRandom: clientRandom, serverRandom: serverRandom, bits: aesBits)
            let channel = try EAXChannel(receiveKey: rxKey, sendKey: txKey)
            // the "ne" types stop it after the subtype: no message past that one is decrypted
            channel.oneMessageAtATime = !keepEncryption
            ctx.startChannel(channel)
            ctx.send(hash(firstClient: true))
            ctx.describeSecurity("\(SecurityType.name(type)) (RSA \(serverBits), AES-\(aesBits)-EAX)")
            state = .hash
        case .hash:
            let n = aesBits == 128 ? 20 : 32
            try r.require(n)
            let got = Array(UnsafeBufferPointer(start: try r.bytes(n), count: n))
            guard got == hash(firstClient: false) else { throw ProtocolError("RSA-AES: the server's key hash does not match (a man in the middle?)") }
            clientKey = nil; clientRandom = []   // secrets no longer needed
            state = .subtype
        case .subtype:
            let sub = try r.u8()
            let needUser: Bool
            switch sub {
            case RSAAESHandler.subtypeUserPass: needUser = true
            case RSAAESHandler.subtypePass: needUser = false
            default: throw ProtocolError("RSA-AES: unknown subtype \(sub)")
            }
            var message = try ctx.withCredentials(method: SecurityType.name(type), needsUsername: needUser) { c in
                let user = needUser ? Array(c.username.utf8) : []
                // One byte each carries the lengths.
                guard user.count <= 255 else { throw ProtocolError("RSA-AES: user name longer than 255 bytes") }
                guard c.password.count <= 255 else { throw ProtocolError("RSA-AES: password longer than 255 bytes") }
                var m = [UInt8(user.count)] + user + [UInt8(c.password.count)]
                c.password.withBytes { m.append(contentsOf: $0) }
                return m
            }
            ctx.sendSecret(&message)
            if !keepEncryption { ctx.stopChannel() }
            return .finished
        }
        return .progressed
    }

    /// (server→client key, client→server key).
    static func sessionKeys(clientRandom: [UInt8], serverRandom: [UInt8], bits: Int) -> ([UInt8], [UInt8]) {
        if bits == 128 {
            return (Array(digest(EVP_sha1(), clientRandom + serverRandom).prefix(16)), Array(digest(EVP_sha1(), serverRandom + clientRandom).prefix(16)))
        }
        return (digest(EVP_sha256(), clientRandom + serverRandom), digest(EVP_sha256(), serverRandom + clientRandom))
    }

    /// Ours hashes our key first; the server's hashes its key first.
    private func hash(firstClient: Bool) -> [UInt8] {
        let c = secBE32(UInt32(serverBits)) + clientN + clientE   // our key has the server's length
        let s = secBE32(UInt32(serverBits)) + serverN + serverE
        let m = firstClient ? c + s : s + c
        return RSAAESHandler.digest(aesBits == 128 ? EVP_sha1() : EVP_sha256(), m)
    }

    private func verifyServer(_ ctx: SecurityContext) throws {
        let blob = secBE32(UInt32(serverBits)) + serverN + serverE
        try ctx.trust(ServerIdentity(kind: .rsa, server: ctx.settings.serverDescription,
                                     fingerprint: RSAAESHandler.digest(EVP_sha256(), blob),
                                     displayFingerprint: RSAAESHandler.realVNCFingerprint(blob), verifyError: nil, subject: nil))
    }

    /// RealVNC's form: the first 8 bytes of SHA-1 over u32 bits, n, e as "xx-xx-…".
    static func realVNCFingerprint(_ blob: [UInt8]) -> String {
        digest(EVP_sha1(), blob).prefix(8).map { String($0, radix: 16).leftPadded(2) }.joined(separator: "-")
    }

    static func digest(_ md: OpaquePointer?, _ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var n: UInt32 = 0
        _ = EVP_Digest(data, data.count, &out, &n, md, nil)
        return Array(out.prefix(Int(n)))
    }
}

/// An RSA key through OpenSSL 3's EVP interface (PKCS#1 v1.5 padding, as RSA-AES uses).
/// Sendable: the EVP_PKEY is never changed after creation, and OpenSSL 3 takes a key for
/// concurrent use as long as nobody changes it.
@_spi(Fuzzing) public final class RSAKey: @unchecked Sendable {
    let pkey: OpaquePointer

    init(owning key: OpaquePointer) { pkey = key }

    @_spi(Fuzzing) public init(publicN n: [UInt8], e: [UInt8]) throws {
        guard let bld = OSSL_PARAM_BLD_new() else { throw ProtocolError("RSA: out of memory") }
        defer { OSSL_PARAM_BLD_free(bld) }
        let bn = BN_bin2bn(n, Int32(n.count), nil), be = BN_bin2bn(e, Int32(e.count), nil)
        defer { BN_free(bn); BN_free(be) }
        // A usable modulus fills its declared size and is odd; e is odd and above 1.
        guard let nb = bn, let eb = be, BN_num_bits(nb) > Int32(n.count * 8 - 8), BN_is_odd(nb) == 1,
              BN_is_odd(eb) == 1, BN_num_bits(eb) > 1 else { throw ProtocolError("RSA-AES: server key is invalid") }
        // The builder keeps the key-name pointers until to_param: they must outlive the calls.
        let nName = strdup("n"), eName = strdup("e")
        defer { free(nName); free(eName) }
        guard bn != nil, be != nil, OSSL_PARAM_BLD_push_BN(bld, nName, bn) == 1, OSSL_PARAM_BLD_push_BN(bld, eName, be) == 1,
              let params = OSSL_PARAM_BLD_to_param(bld) else { throw TLSChannel.error("RSA-AES: server key is invalid (params)") }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { throw ProtocolError("RSA: no context") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var k: OpaquePointer? = nil
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &k, Int32(OSSL_KEYMGMT_SELECT_PUBLIC_KEY | OSSL_KEYMGMT_SELECT_ALL_PARAMETERS), params) == 1, let key = k else {
            throw TLSChannel.error("RSA-AES: server key is invalid (fromdata)")
        }
        pkey = key
    }

    /// The server's public key, through `cache` when one is given.
    static func server(n: [UInt8], e: [UInt8], cache: (any RSAResultCache)?) throws -> RSAKey {
        guard let cache else { return try RSAKey(publicN: n, e: e) }
        return try cache.key(n: n, e: e) { try RSAKey(publicN: n, e: e) }
    }

    init(generateBits bits: Int) throws {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { throw ProtocolError("RSA: no context") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var k: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1,
              EVP_PKEY_generate(ctx, &k) == 1, let key = k else { throw ProtocolError("RSA: cannot generate a \(bits)-bit key") }
        pkey = key
    }

    deinit { EVP_PKEY_free(pkey) }

    /// A public component ("n" or "e"), big-endian, left-padded to `size` bytes.
    @_spi(Fuzzing) public func component(_ name: String, size: Int) throws -> [UInt8] {
        var bn: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pkey, name, &bn) == 1, let b = bn else { throw ProtocolError("RSA: no \(name)") }
        defer { BN_free(b) }
        var out = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(b, &out, Int32(size)) == Int32(size) else { throw ProtocolError("RSA: \(name) too long") }
        return out
    }

    /// PKCS#1 v1.5, through `cache` when one is given.
    @_spi(Fuzzing) public func encrypt(_ m: [UInt8], cache: (any RSAResultCache)? = nil) throws -> [UInt8] {
        try crypt(m, encrypt: true, cache: cache)
    }
    @_spi(Fuzzing) public func decrypt(_ c: [UInt8], cache: (any RSAResultCache)? = nil) throws -> [UInt8] {
        try crypt(c, encrypt: false, cache: cache)
    }

    private func crypt(_ input: [UInt8], encrypt: Bool, cache: (any RSAResultCache)?) throws -> [UInt8] {
        guard let cache else { return try cryptOnce(input, encrypt: encrypt) }
        return try cache.crypt(self, input, encrypt: encrypt) { try cryptOnce(input, encrypt: encrypt) }
    }

    private func cryptOnce(_ input: [UInt8], encrypt: Bool) throws -> [UInt8] {
        guard let ctx = EVP_PKEY_CTX_new(pkey, nil) else { throw ProtocolError("RSA: no context") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard (encrypt ? EVP_PKEY_encrypt_init(ctx) : EVP_PKEY_decrypt_init(ctx)) == 1,
              EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1 else { throw ProtocolError("RSA: init failed") }
        var len = 0
        let f = encrypt ? EVP_PKEY_encrypt : EVP_PKEY_decrypt
        guard f(ctx, nil, &len, input, input.count) == 1 else { throw ProtocolError("RSA: \(encrypt ? "encryption" : "decryption") failed") }
        var out = [UInt8](repeating: 0, count: len)
        guard f(ctx, &out, &len, input, input.count) == 1 else { throw ProtocolError("RSA: \(encrypt ? "encryption" : "decryption") failed") }
        return Array(out.prefix(len))
    }

    static func random(_ n: Int) throws -> [UInt8] {
        var b = [UInt8](repeating: 0, count: n)
        guard RAND_bytes(&b, Int32(n)) == 1 else { throw ProtocolError("no random bytes from OpenSSL") }
        return b
    }
}

