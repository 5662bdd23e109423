import COpenSSL

/// Fuzzing only: our RSA-AES key and random, and ARD's Diffie-Hellman private value, given
/// instead of generated. A key generation per run would cost milliseconds (seconds for 8192
/// bits), and a run must replay exactly from its input. Weak by design: only the fuzz targets
/// set `ClientEngine.fixedKeys`.
@_spi(Fuzzing) public struct FixedKeys: Sendable {
    /// Our RSA-AES key, whatever the server's size (its n and e are padded to that size).
    public var rsa: RSAKey
    /// Our RSA-AES random (its first 16 or 32 bytes) and ARD's private value (16 bytes is enough
    /// to exercise the arithmetic, and keeps an 8192-bit exponentiation cheap).
    public var secret: [UInt8]
    /// RSA results to reuse (the server's key and the randoms come again every run).
    public var cache: (any RSAResultCache)?
    public init(rsa: RSAKey, secret: [UInt8], cache: (any RSAResultCache)? = nil) {
        self.rsa = rsa; self.secret = secret; self.cache = cache
    }

    func secret(_ n: Int) -> [UInt8] { (0..<n).map { secret.isEmpty ? 0 : secret[$0 % secret.count] } }
}

/// Fuzzing only: RSA results remembered for inputs seen before, given with `FixedKeys`. The
/// harness plays a server with fixed keys and randoms, so each input would repeat the same key
/// import, encryption and decryption; the parsing around the calls is what is fuzzed. Any
/// thread (a run may compare two engines).
@_spi(Fuzzing) public protocol RSAResultCache: AnyObject, Sendable {
    /// The server's public key for `n` and `e`: one made earlier for the same, or `make()`.
    func key(n: [UInt8], e: [UInt8], make: () throws -> RSAKey) throws -> RSAKey
    /// PKCS#1 v1.5 with `key`: an earlier result for the same input, or `run()` (randomised
    /// encryption: any valid result will do).
    func crypt(_ key: RSAKey, _ input: [UInt8], encrypt: Bool, run: () throws -> [UInt8]) throws -> [UInt8]
}

extension RSAKey {
    /// A private key from PEM text (fuzz targets embed theirs).
    @_spi(Fuzzing) public convenience init(pem: String) throws {
        // the memory BIO reads the bytes in place: they must outlive it
        let key: OpaquePointer? = Array(pem.utf8).withUnsafeBytes { b in
            guard let bio = BIO_new_mem_buf(b.baseAddress, Int32(b.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { throw ProtocolError("RSA: unreadable PEM key") }
        self.init(owning: key)
    }
}

/// Fuzzing only: RSA-AES's key schedule, for the target that plays the server.
@_spi(Fuzzing) public enum RSAAESKeys {
    /// (server→client key, client→server key).
    public static func sessionKeys(clientRandom: [UInt8], serverRandom: [UInt8], bits: Int) -> ([UInt8], [UInt8]) {
        RSAAESHandler.sessionKeys(clientRandom: clientRandom, serverRandom: serverRandom, bits: bits)
    }
    /// The key hash each side sends: SHA-1 for the 128-bit types, SHA-256 for the others.
    public static func keyHash(_ keys: [UInt8], bits256: Bool) -> [UInt8] {
        RSAAESHandler.digest(bits256 ? EVP_sha256() : EVP_sha1(), keys)
    }
}
