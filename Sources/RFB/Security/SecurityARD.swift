import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// Apple Remote Desktop authentication (type 30), as macOS Screen Sharing offers it: the server
/// sends Diffie-Hellman parameters and its public value; the key is MD5 of the shared secret;
/// user name and password (64 bytes each, NUL-terminated, random-filled) go AES-128-ECB
/// encrypted, followed by our public value. Then SecurityResult.
final class ARDHandler: SecurityHandler {
    /// DH key length in bytes; macOS uses 128 (1024 bits); 1024 bytes (8192 bits) is plenty.
    static let maxKeyLength = 1024
    /// Anything shorter than 1024 bits is breakable (macOS sends exactly 128 bytes).
    static let minKeyLength = 128
    static let credentialField = 64
    /// Fuzzing: our private value, given (see `FixedKeys`).
    private let fixed: FixedKeys?

    init(fixed: FixedKeys? = nil) { self.fixed = fixed }

    func step(_ r: inout ByteReader, _ ctx: SecurityContext) throws -> SecurityProgress {
        try r.require(4)
        let g = Int(r.base[r.pos]) << 8 | Int(r.base[r.pos + 1])
        let len = Int(r.base[r.pos + 2]) << 8 | Int(r.base[r.pos + 3])
        guard len >= ARDHandler.minKeyLength, len <= ARDHandler.maxKeyLength else {
            throw ProtocolError("Apple Remote Desktop: key length \(len) is outside \(ARDHandler.minKeyLength)...\(ARDHandler.maxKeyLength) bytes")
        }
        guard g > 1 else { throw ProtocolError("Apple Remote Desktop: generator \(g) is invalid") }
        try r.require(4 + 2 * len)
        r.pos += 4
        let prime = Array(UnsafeBufferPointer(start: try r.bytes(len), count: len))
        let serverPublic = Array(UnsafeBufferPointer(start: try r.bytes(len), count: len))
        let (cipher, pub) = try ctx.withCredentials(method: "Apple Remote Desktop", needsUsername: true) { c in
            try c.password.withBytes { pw in
                try ARDHandler.response(generator: g, prime: prime, serverPublic: serverPublic,
                                        clientPrivate: try fixed?.secret(16) ?? RSAKey.random(len), username: Array(c.username.utf8),
                                        password: pw, filler: try RSAKey.random(2 * ARDHandler.credentialField))
            }
        }
        ctx.send(cipher + pub)
        ctx.describeSecurity("Apple Remote Desktop (DH \(len * 8) bits, AES-128)")
        return .finished
    }

    /// The same with the password in an array (tests and fixed values).
    static func response(generator: Int, prime: [UInt8], serverPublic: [UInt8], clientPrivate: [UInt8],
                         username: [UInt8], password: [UInt8], filler: [UInt8]) throws -> ([UInt8], [UInt8]) {
        try password.withUnsafeBytes {
            try response(generator: generator, prime: prime, serverPublic: serverPublic, clientPrivate: clientPrivate,
                         username: username, password: $0, filler: filler)
        }
    }

    /// The 128-byte encrypted credentials and our public value (`prime.count` bytes).
    static func response(generator: Int, prime: [UInt8], serverPublic: [UInt8], clientPrivate: [UInt8],
                         username: [UInt8], password: UnsafeRawBufferPointer, filler: [UInt8]) throws -> ([UInt8], [UInt8]) {
        // Each field keeps a terminating NUL.
        guard username.count < credentialField, password.count < credentialField else {
            throw ProtocolError("Apple Remote Desktop: user name and password must each be under \(credentialField) bytes")
        }
        guard let bnctx = BN_CTX_new() else { throw ProtocolError("out of memory") }
        defer { BN_CTX_free(bnctx) }
        let p = BN_bin2bn(prime, Int32(prime.count), nil), ys = BN_bin2bn(serverPublic, Int32(serverPublic.count), nil)
        let x = BN_bin2bn(clientPrivate, Int32(clientPrivate.count), nil), g = BN_new(), y = BN_new(), k = BN_new()
        defer { BN_free(p); BN_free(ys); BN_clear_free(x); BN_free(g); BN_free(y); BN_clear_free(k) }
        guard let p, let ys, let x, let g, let y, let k, BN_set_word(g, UInt(generator)) == 1,
              BN_is_zero(p) == 0, BN_is_one(p) == 0 else { throw ProtocolError("Apple Remote Desktop: invalid Diffie-Hellman parameters") }
        // the server's value must lie in (1, p-1): 0, 1 and p-1 force a known shared secret
        guard let pm1 = BN_dup(p) else { throw ProtocolError("out of memory") }
        defer { BN_free(pm1) }
        guard BN_sub_word(pm1, 1) == 1, BN_cmp(ys, BN_value_one()) > 0, BN_cmp(ys, pm1) < 0 else {
            throw ProtocolError("Apple Remote Desktop: the server's Diffie-Hellman value is outside (1, p-1)")
        }
        guard BN_mod_exp(y, g, x, p, bnctx) == 1, BN_mod_exp(k, ys, x, p, bnctx) == 1 else {
            throw ProtocolError("Apple Remote Desktop: Diffie-Hellman failed")
        }
        var pub = [UInt8](repeating: 0, count: prime.count), secret = [UInt8](repeating: 0, count: prime.count)
        guard BN_bn2binpad(y, &pub, Int32(prime.count)) >= 0, BN_bn2binpad(k, &secret, Int32(prime.count)) >= 0 else {
            throw ProtocolError("Apple Remote Desktop: Diffie-Hellman failed")
        }
        var key = RSAAESHandler.digest(EVP_md5(), secret)
        var plain = filler.count >= 2 * credentialField ? Array(filler.prefix(2 * credentialField)) : [UInt8](repeating: 0, count: 2 * credentialField)
        // the password in clear and the key that encrypts it: zeroed before they go
        defer {
            plain.withUnsafeMutableBytes { if let b = $0.baseAddress { explicit_bzero(b, $0.count) } }
            secret.withUnsafeMutableBytes { if let b = $0.baseAddress { explicit_bzero(b, $0.count) } }
            key.withUnsafeMutableBytes { if let b = $0.baseAddress { explicit_bzero(b, $0.count) } }
        }
        for (i, b) in username.enumerated() { plain[i] = b }
        plain[username.count] = 0
        for (i, b) in password.enumerated() { plain[credentialField + i] = b }
        plain[credentialField + password.count] = 0
        guard let c = EVP_CIPHER_CTX_new() else { throw ProtocolError("out of memory") }
        defer { EVP_CIPHER_CTX_free(c) }
        var out = [UInt8](repeating: 0, count: plain.count + 16)
        var n: Int32 = 0
        guard EVP_EncryptInit_ex(c, EVP_aes_128_ecb(), nil, key, nil) == 1, EVP_CIPHER_CTX_set_padding(c, 0) == 1,
              EVP_EncryptUpdate(c, &out, &n, plain, Int32(plain.count)) == 1, Int(n) == plain.count else {
            throw ProtocolError("Apple Remote Desktop: AES failed")
        }
        return (Array(out.prefix(plain.count)), pub)
    }
}
