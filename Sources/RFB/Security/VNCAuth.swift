#if canImport(Glibc)
import Glibc
#endif

/// VNC Authentication (security type 2) and the vncpasswd file format, on our own DES.
public enum VNCAuth {
    /// The fixed key TigerVNC/TightVNC/RealVNC use to obfuscate stored passwords
    /// (`d3desObfuscationKey` in TigerVNC's common/rfb/obfuscate.cxx: {23,82,107,6,35,78,88,7}).
    /// Like the password key it goes through the VNC bit reversal.
    static let passwordFileKey: [UInt8] = [0x17, 0x52, 0x6b, 0x06, 0x23, 0x4e, 0x58, 0x07]

    /// The 16-byte response to a 16-byte challenge: the challenge encrypted as two DES-ECB blocks
    /// with the first 8 password bytes (zero-padded) as key, each key byte's bits reversed (the
    /// quirk of the d3des code every VNC implementation inherited).
    /// A challenge whose length is not a multiple of 8 has its last block zero-padded.
    /// The key and its schedule (the password's first 8 bytes, as good as) are zeroed after.
    public static func response(challenge: [UInt8], password: UnsafeRawBufferPointer) -> [UInt8] {
        var key = vncKey(password)
        var des = DESCipher(key: key)
        defer { wipe(&key); des.wipe() }
        var out: [UInt8] = []
        out.reserveCapacity((challenge.count + 7) / 8 * 8)
        var i = 0
        while i < challenge.count {
            let block = DESCipher.load(challenge, at: i)
            DESCipher.store(des.encrypt(block), into: &out)
            i += 8
        }
        return out
    }

    /// The same with the password in an array (tests and fixed values).
    public static func response(challenge: [UInt8], password: [UInt8]) -> [UInt8] {
        password.withUnsafeBytes { response(challenge: challenge, password: $0) }
    }

    /// The password of a vncpasswd file (`vncpasswd -f` output): its first 8 bytes are the password,
    /// NUL-padded, DES-encrypted with `passwordFileKey`. Returns the bytes before the first NUL;
    /// a file shorter than 8 bytes gives an empty secret. (A second 8-byte block, the view-only
    /// password, is ignored.)
    public static func decryptPasswordFile(_ bytes: [UInt8]) -> Secret {
        guard bytes.count >= 8 else { return Secret(capacity: 0) }
        var key = vncKey(passwordFileKey)
        var des = DESCipher(key: key)
        var plain: [UInt8] = []
        plain.reserveCapacity(8)
        DESCipher.store(des.decrypt(DESCipher.load(bytes, at: 0)), into: &plain)
        let n = plain.firstIndex(of: 0) ?? plain.count
        var out = Secret(capacity: n)
        plain.withUnsafeBytes { _ = out.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        wipe(&plain); wipe(&key); des.wipe()
        return out
    }

    /// First 8 bytes, zero-padded, each byte bit-reversed.
    static func vncKey(_ password: UnsafeRawBufferPointer) -> [UInt8] {
        (0..<8).map { i in
            var b = i < password.count ? password[i] : 0
            var r: UInt8 = 0
            for _ in 0..<8 { r = r << 1 | (b & 1); b >>= 1 }
            return r
        }
    }

    static func vncKey(_ password: [UInt8]) -> [UInt8] { password.withUnsafeBytes { vncKey($0) } }

    static func wipe(_ a: inout [UInt8]) { Secret.wipe(&a) }
}

/// Single-block DES (FIPS 46-3), encryption and decryption. Bits are numbered as in FIPS:
/// bit 1 is the most significant bit of byte 0; the key's parity bits are ignored.
/// Only for VNC authentication, a 1990s protocol quirk, never for protecting anything new.
struct DESCipher {
    private var subkeys: [UInt64] = []   // 16 × 48 bits

    /// Zeroes the key schedule (it gives the key back).
    mutating func wipe() {
        subkeys.withUnsafeMutableBytes { if let b = $0.baseAddress { explicit_bzero(b, $0.count) } }
    }

    init(key: [UInt8]) {
        let k = DESCipher.load(key, at: 0)
        let cd = DESCipher.permute(k, inputBits: 64, DESCipher.pc1)   // 56 bits
        var c = UInt32(truncatingIfNeeded: cd >> 28) & 0x0fff_ffff
        var d = UInt32(truncatingIfNeeded: cd) & 0x0fff_ffff
        subkeys.reserveCapacity(16)
        for s in DESCipher.shifts {
            c = ((c << s) | (c >> (28 - s))) & 0x0fff_ffff
            d = ((d << s) | (d >> (28 - s))) & 0x0fff_ffff
            subkeys.append(DESCipher.permute(UInt64(c) << 28 | UInt64(d), inputBits: 56, DESCipher.pc2))
        }
    }

    func encrypt(_ block: UInt64) -> UInt64 { crypt(block, decrypt: false) }
    func decrypt(_ block: UInt64) -> UInt64 { crypt(block, decrypt: true) }

    private func crypt(_ block: UInt64, decrypt: Bool) -> UInt64 {
        let ip = DESCipher.permute(block, inputBits: 64, DESCipher.ip)
        var l = UInt32(truncatingIfNeeded: ip >> 32), r = UInt32(truncatingIfNeeded: ip)
        for round in 0..<16 {
            let k = subkeys[decrypt ? 15 - round : round]
            (l, r) = (r, l ^ DESCipher.f(r, k))
        }
        // the halves are swapped once more before the final permutation
        return DESCipher.permute(UInt64(r) << 32 | UInt64(l), inputBits: 64, DESCipher.fp)
    }

    private static func f(_ r: UInt32, _ k: UInt64) -> UInt32 {
        let x = permute(UInt64(r), inputBits: 32, e) ^ k     // 48 bits
        var s: UInt32 = 0
        for box in 0..<8 {
            let six = Int((x >> UInt64(42 - 6 * box)) & 0x3f)
            let row = (six & 0x20) >> 4 | (six & 1), col = (six >> 1) & 0x0f
            s = s << 4 | UInt32(sboxes[box * 64 + row * 16 + col])
        }
        return UInt32(truncatingIfNeeded: permute(UInt64(s), inputBits: 32, p))
    }

    /// Output bit i (from the most significant) is input bit table[i] (1-based, from the most significant).
    private static func permute(_ v: UInt64, inputBits: Int, _ table: [UInt8]) -> UInt64 {
        var out: UInt64 = 0
        for t in table { out = out << 1 | (v >> UInt64(inputBits - Int(t))) & 1 }
        return out
    }

    /// 8 bytes big-endian from `offset`, zero-padded past the end.
    static func load(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(offset + i < bytes.count ? bytes[offset + i] : 0) }
        return v
    }
    static func store(_ v: UInt64, into out: inout [UInt8]) {
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> UInt64(56 - 8 * i))) }
    }

    private static let ip: [UInt8] = [
        58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4,
        62, 54, 46, 38, 30, 22, 14, 6, 64, 56, 48, 40, 32, 24, 16, 8,
        57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3,
        61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7]
    private static let fp: [UInt8] = [
        40, 8, 48, 16, 56, 24, 64, 32, 39, 7, 47, 15, 55, 23, 63, 31,
        38, 6, 46, 14, 54, 22, 62, 30, 37, 5, 45, 13, 53, 21, 61, 29,
        36, 4, 44, 12, 52, 20, 60, 28, 35, 3, 43, 11, 51, 19, 59, 27,
        34, 2, 42, 10, 50, 18, 58, 26, 33, 1, 41, 9, 49, 17, 57, 25]
    private static let e: [UInt8] = [
        32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17,
        16, 17, 18, 19, 20, 21, 20, 21, 22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1]
    private static let p: [UInt8] = [
        16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10,
        2, 8, 24, 14, 32, 27, 3, 9, 19, 13, 30, 6, 22, 11, 4, 25]
    private static let pc1: [UInt8] = [
        57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18,
        10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60, 52, 44, 36,
        63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22,
        14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4]
    private static let pc2: [UInt8] = [
        14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10, 23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2,
        41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48, 44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32]
    private static let shifts: [UInt32] = [1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1]
    /// S1…S8, each 4 rows × 16 columns.
    private static let sboxes: [UInt8] = [
        14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7,
        0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8,
        4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0,
        15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13,

        15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10,
        3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5,
        0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15,
        13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9,

        10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8,
        13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1,
        13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7,
        1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12,

        7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15,
        13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9,
        10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4,
        3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14,

        2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9,
        14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6,
        4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14,
        11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3,

        12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11,
        10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8,
        9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6,
        4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13,

        4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1,
        13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6,
        1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2,
        6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12,

        13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7,
        1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2,
        7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8,
        2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11]
}
