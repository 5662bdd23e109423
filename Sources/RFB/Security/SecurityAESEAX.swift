import COpenSSL

/// AES-EAX (Bellare, Rogaway, Wagner 2004) built from OpenSSL's AES-CBC (for OMAC/CMAC) and
/// AES-CTR, as RSA-AES frames its messages. OpenSSL has no EAX mode of its own.
final class AESEAX {
    static let tagSize = 16
    private let cbc: OpaquePointer   // zero-IV CBC for OMAC
    private let ctr: OpaquePointer
    private var k1 = [UInt8](repeating: 0, count: 16), k2 = [UInt8](repeating: 0, count: 16)
    /// CBC's output, of which only the last block is used (kept: a message is up to 8 KiB).
    private let work = ScratchBuffer(capacity: 1024)
    private static let zeroBlock = [UInt8](repeating: 0, count: 16)

    /// `key` is 16 or 32 bytes (AES-128 or AES-256).
    init(key: [UInt8]) throws {
        guard key.count == 16 || key.count == 32 else { throw ProtocolError("internal: AES key of \(key.count) bytes") }
        guard let a = EVP_CIPHER_CTX_new() else { throw ProtocolError("cannot create an AES context") }
        guard let b = EVP_CIPHER_CTX_new() else { EVP_CIPHER_CTX_free(a); throw ProtocolError("cannot create an AES context") }
        cbc = a; ctr = b
        let cbcCipher = key.count == 16 ? EVP_aes_128_cbc() : EVP_aes_256_cbc()
        let ctrCipher = key.count == 16 ? EVP_aes_128_ctr() : EVP_aes_256_ctr()
        // The key schedule once: each OMAC and CTR pass then sets only its IV (it was four key
        // schedules per message, for the same key).
        let zero = [UInt8](repeating: 0, count: 16)
        guard EVP_EncryptInit_ex(cbc, cbcCipher, nil, key, zero) == 1, EVP_CIPHER_CTX_set_padding(cbc, 0) == 1,
              EVP_EncryptInit_ex(ctr, ctrCipher, nil, key, zero) == 1 else {
            throw ProtocolError("cannot set the AES key")
        }
        // CMAC subkeys: L = E_K(0^128), K1 = dbl(L), K2 = dbl(K1).
        let l = try cbcMAC([UInt8](repeating: 0, count: 16))
        k1 = AESEAX.dbl(l); k2 = AESEAX.dbl(k1)
    }

    deinit { EVP_CIPHER_CTX_free(cbc); EVP_CIPHER_CTX_free(ctr) }

    /// Doubling in GF(2^128) with the polynomial x^128 + x^7 + x^2 + x + 1.
    static func dbl(_ b: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        var carry: UInt8 = 0
        for i in stride(from: 15, through: 0, by: -1) {
            out[i] = b[i] << 1 | carry
            carry = b[i] >> 7
        }
        if carry != 0 { out[15] ^= 0x87 }
        return out
    }

    /// E_K of one block (the CMAC subkeys' L).
    private func cbcMAC(_ block: [UInt8]) throws -> [UInt8] {
        guard EVP_EncryptInit_ex(cbc, nil, nil, nil, AESEAX.zeroBlock) == 1 else { throw ProtocolError("AES-CBC failed") }
        return try block.withUnsafeBytes { try cbcLast($0.baseAddress, 16) }
    }

    /// CBC over `count` bytes (whole blocks) from the running state; returns the last block.
    private func cbcLast(_ p: UnsafeRawPointer?, _ count: Int) throws -> [UInt8] {
        work.reserve(count)
        var n: Int32 = 0
        guard EVP_EncryptUpdate(cbc, work.pointer, &n, p?.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1,
              Int(n) == count else { throw ProtocolError("AES-CBC failed") }
        return Array(UnsafeBufferPointer(start: work.pointer + count - 16, count: 16))
    }

    /// OMAC^t_K(M) = CMAC_K([t]_128 || M), streamed through CBC: every block but the last as
    /// it lies, the last one (M's, or the tweak's when M is empty) XORed with K1 when whole,
    /// padded with 0x80 0... and XORed with K2 when not.
    func omac(_ t: UInt8, _ m: UnsafeRawBufferPointer) throws -> [UInt8] {
        guard EVP_EncryptInit_ex(cbc, nil, nil, nil, AESEAX.zeroBlock) == 1 else { throw ProtocolError("AES-CBC failed") }
        var last = [UInt8](repeating: 0, count: 16)
        let n = m.count
        if n == 0 {
            last[15] = t
            for i in 0..<16 { last[i] ^= k1[i] }
        } else {
            var tweak = [UInt8](repeating: 0, count: 16)
            tweak[15] = t
            _ = try tweak.withUnsafeBytes { try cbcLast($0.baseAddress, 16) }
            let tail = n % 16 == 0 ? 16 : n % 16, body = n - tail
            if body > 0 { _ = try cbcLast(m.baseAddress, body) }
            for i in 0..<tail { last[i] = m[body + i] }
            if tail == 16 {
                for i in 0..<16 { last[i] ^= k1[i] }
            } else {
                last[tail] = 0x80
                for i in 0..<16 { last[i] ^= k2[i] }
            }
        }
        return try last.withUnsafeBytes { try cbcLast($0.baseAddress, 16) }
    }

    func omac(_ t: UInt8, _ m: [UInt8]) throws -> [UInt8] { try m.withUnsafeBytes { try omac(t, $0) } }

    private func ctrCrypt(_ iv: [UInt8], _ input: UnsafeRawBufferPointer) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: input.count)
        guard !input.isEmpty else { return out }
        var n: Int32 = 0
        guard EVP_EncryptInit_ex(ctr, nil, nil, nil, iv) == 1,
              EVP_EncryptUpdate(ctr, &out, &n, input.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(input.count)) == 1,
              Int(n) == input.count else { throw ProtocolError("AES-CTR failed") }
        return out
    }

    /// Ciphertext followed by the 16-byte tag.
    func seal(nonce: [UInt8], header: [UInt8], plaintext: UnsafeRawBufferPointer) throws -> [UInt8] {
        let n = try omac(0, nonce), h = try omac(1, header)
        let c = try ctrCrypt(n, plaintext)
        let cm = try omac(2, c)
        return c + (0..<16).map { n[$0] ^ h[$0] ^ cm[$0] }
    }

    /// The plaintext, or nil when the tag does not match.
    func open(nonce: [UInt8], header: [UInt8], ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer) throws -> [UInt8]? {
        let n = try omac(0, nonce), h = try omac(1, header)
        let cm = try omac(2, ciphertext)
        var diff: UInt8 = 0
        for i in 0..<16 { diff |= tag[i] ^ n[i] ^ h[i] ^ cm[i] }
        guard diff == 0 else { return nil }
        return try ctrCrypt(n, ciphertext)
    }
}

/// RSA-AES's message framing: u16 length, AES-EAX ciphertext, 16-byte tag; the length bytes are
/// the associated data; the nonce is a 128-bit little-endian counter per direction from 0.
@_spi(Fuzzing) public final class EAXChannel: SecureChannel {
    /// TigerVNC writes at most 8 KiB per message; the u16 length bounds what we accept.
    static let maxWriteMessage = 8192
    private let rx: AESEAX, tx: AESEAX
    private var rxNonce = [UInt8](repeating: 0, count: 16), txNonce = [UInt8](repeating: 0, count: 16)
    private var raw: [UInt8] = []
    private var rawStart = 0
    private var out: [UInt8] = []
    /// One message per `drainPlain`, for the "ne" types: the channel stops after the message
    /// carrying the subtype, and what follows must stay raw (it is plain), however the bytes
    /// were split. The engine asks for the next message once it has parsed the last.
    var oneMessageAtATime = false

    @_spi(Fuzzing) public init(receiveKey: [UInt8], sendKey: [UInt8]) throws {
        rx = try AESEAX(key: receiveKey); tx = try AESEAX(key: sendKey)
    }

    static func increment(_ n: inout [UInt8]) {
        for i in 0..<16 { n[i] &+= 1; if n[i] != 0 { break } }
    }

    func ingest(_ p: UnsafeRawPointer, _ n: Int) throws {
        raw.append(contentsOf: UnsafeRawBufferPointer(start: p, count: n))
    }

    func drainPlain(into input: InputBuffer) throws {
        while raw.count - rawStart >= 2 {
            let len = Int(raw[rawStart]) << 8 | Int(raw[rawStart + 1])
            let total = 2 + len + AESEAX.tagSize
            guard raw.count - rawStart >= total else { break }
            let header = [raw[rawStart], raw[rawStart + 1]]
            let plain: [UInt8]? = try raw.withUnsafeBytes { b in
                try rx.open(nonce: rxNonce, header: header,
                            ciphertext: UnsafeRawBufferPointer(rebasing: b[(rawStart + 2)..<(rawStart + 2 + len)]),
                            tag: UnsafeRawBufferPointer(rebasing: b[(rawStart + 2 + len)..<(rawStart + total)]))
            }
            guard let plain else { throw ProtocolError("RSA-AES: corrupted message from the server (AES-EAX tag mismatch)") }
            EAXChannel.increment(&rxNonce)
            rawStart += total
            plain.withUnsafeBytes { if let b = $0.baseAddress { input.append(b, plain.count) } }
            if oneMessageAtATime { break }
        }
        if rawStart == raw.count { raw.removeAll(keepingCapacity: true); rawStart = 0 }
        else if rawStart > 65536 { raw.removeFirst(rawStart); rawStart = 0 }
    }

    /// Raw bytes received but not yet a whole message (for RA2ne, which encrypts only the handshake).
    func takeLeftoverRaw() -> [UInt8] { defer { raw = []; rawStart = 0 }; return Array(raw[rawStart...]) }

    /// A whole message is buffered that `drainPlain` has not decrypted yet.
    var holdsMessage: Bool {
        raw.count - rawStart >= 2 && raw.count - rawStart >= 2 + (Int(raw[rawStart]) << 8 | Int(raw[rawStart + 1])) + AESEAX.tagSize
    }

    @_spi(Fuzzing) public func writePlain(_ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = min(EAXChannel.maxWriteMessage, bytes.count - off)
            let header = [UInt8(n >> 8), UInt8(n & 0xff)]
            let sealed = try bytes.withUnsafeBytes { try tx.seal(nonce: txNonce, header: header, plaintext: UnsafeRawBufferPointer(rebasing: $0[off..<(off + n)])) }
            EAXChannel.increment(&txNonce)
            out += header
            out += sealed
            off += n
        }
    }

    var hasRaw: Bool { !out.isEmpty }
    @_spi(Fuzzing) public func takeRaw() -> [UInt8] { defer { out.removeAll(keepingCapacity: true) }; return out }
}
