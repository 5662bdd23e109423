#if canImport(Glibc)
import Glibc
#endif
@_spi(Fuzzing) import RFB

#if FUZZING
@_silgen_name("__asan_poison_memory_region") private func asanPoison(_ p: UnsafeRawPointer, _ size: Int)
@_silgen_name("__asan_unpoison_memory_region") private func asanUnpoison(_ p: UnsafeRawPointer, _ size: Int)
#else
// the replay tool runs without AddressSanitizer
private func asanPoison(_ p: UnsafeRawPointer, _ size: Int) {}
private func asanUnpoison(_ p: UnsafeRawPointer, _ size: Int) {}
#endif

/// The harness's framebuffer pixels, given to every engine it makes (at most 2^16 pixels
/// there). AddressSanitizer serves blocks over 128 KiB with mmap and returns them with munmap,
/// so a fresh framebuffer per input cost page faults, maps and unmaps every run: a fifth of the
/// fuzzer's CPU was system time. Two given back are kept for the next runs (a run may compare
/// two engines). Kept memory stays poisoned beyond the pixels in use, so reads and writes past
/// a framebuffer, or into a freed one, are still reported.
final class ReusedPixels: PixelAllocator, @unchecked Sendable {
    static let shared = ReusedPixels()
    static let capacity = 1 << 16
    private var spare: [UnsafeMutablePointer<UInt32>] = []
    private let lock = PthreadMutex()

    func allocate(_ n: Int) -> UnsafeMutablePointer<UInt32> {
        let bytes = n * MemoryLayout<UInt32>.stride
        guard n <= ReusedPixels.capacity else { return ReusedPixels.aligned(bytes) }
        let kept = lock.locked { spare.popLast() }
        let p = kept ?? ReusedPixels.aligned(ReusedPixels.capacity * MemoryLayout<UInt32>.stride)
        asanUnpoison(p, bytes)
        asanPoison(p + n, (ReusedPixels.capacity - n) * MemoryLayout<UInt32>.stride)
        return p
    }

    /// Zeroed pixels on a 64-byte boundary, as shared memory's pages are: the paths that write
    /// straight into aligned rows (H.264's in-place conversion) run here too.
    private static func aligned(_ bytes: Int) -> UnsafeMutablePointer<UInt32> {
        var p: UnsafeMutableRawPointer?
        guard posix_memalign(&p, 64, bytes) == 0, let p else { fatalError("fuzzing: out of memory") }
        memset(p, 0, bytes)
        return p.assumingMemoryBound(to: UInt32.self)
    }

    func deallocate(_ p: UnsafeMutablePointer<UInt32>, count n: Int) {
        guard n <= ReusedPixels.capacity else { free(p); return }
        asanPoison(p, ReusedPixels.capacity * MemoryLayout<UInt32>.stride)
        let kept = lock.locked { () -> Bool in
            if spare.count < 2 { spare.append(p); return true }
            return false
        }
        if !kept { asanUnpoison(p, ReusedPixels.capacity * MemoryLayout<UInt32>.stride); free(p) }
    }
}

/// The last RSA results, given with the fixed keys. The harness plays a server with fixed keys
/// and randoms, so each input repeated the same import, encryption and decryption (twice: whole
/// and in pieces): OpenSSL, and AddressSanitizer's bookkeeping of OpenSSL's allocations, were a
/// fifth of sec-rsaaes-inner's time, importing the key alone about 6 % of a run. The parsing
/// around the calls is what is fuzzed; a changed key or message still goes to OpenSSL. A few
/// entries, so memory stays bounded; PKCS#1 v1.5 encryption is randomised, and any valid
/// result will do.
final class RSAMemo: RSAResultCache, @unchecked Sendable {
    static let shared = RSAMemo()
    private var lastKey: (n: [UInt8], e: [UInt8], key: RSAKey)?
    private var lastCrypt: [(key: RSAKey, input: [UInt8], encrypt: Bool, output: [UInt8])] = []
    private let lock = PthreadMutex()

    func key(n: [UInt8], e: [UInt8], make: () throws -> RSAKey) throws -> RSAKey {
        if let k = lock.locked({ lastKey }), k.n == n, k.e == e { return k.key }
        let key = try make()
        lock.locked { lastKey = (n, e, key) }
        return key
    }

    /// The last eight results (a handshake encrypts one random and decrypts one; four RSA-AES
    /// types, two sizes of random).
    func crypt(_ key: RSAKey, _ input: [UInt8], encrypt: Bool, run: () throws -> [UInt8]) throws -> [UInt8] {
        if let hit = lock.locked({ lastCrypt.first { $0.key === key && $0.encrypt == encrypt && $0.input == input } }) { return hit.output }
        let output = try run()
        lock.locked {
            if lastCrypt.count == 8 { lastCrypt.removeFirst() }
            lastCrypt.append((key, input, encrypt, output))
        }
        return output
    }
}
