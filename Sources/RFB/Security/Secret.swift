import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A secret's bytes (a password) in memory of their own, overwritten with `explicit_bzero` when
/// the value goes. Not copyable: a second copy of the bytes exists only where `duplicate()`
/// makes one, so the zeroing hits every copy there is (a `[UInt8]` may share its buffer with
/// copies, and wiping one of them copies it first). The storage is allocated once, at its
/// capacity, and never moves: appending never leaves an old buffer behind.
public struct Secret: ~Copyable, @unchecked Sendable {
    /// The most a secret holds: the saved-credentials file, read whole into one (1 MiB, far
    /// more than anyone's saved passwords); a password is at most a 4 KiB line.
    public static let maxBytes = 1 << 20

    private let storage: UnsafeMutableRawBufferPointer
    public private(set) var count: Int

    /// Empty, with room for `capacity` bytes (at most `maxBytes`).
    public init(capacity: Int) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, min(capacity, Secret.maxBytes)), alignment: 1)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        count = 0
    }

    /// A copy of `bytes` (at most `maxBytes` of them).
    public init(copying bytes: UnsafeRawBufferPointer) {
        self.init(capacity: bytes.count)
        _ = append(bytes)
    }

    /// A copy of `bytes`: for fixed values and tests; the caller's array is the caller's to wipe.
    public init(copying bytes: [UInt8]) {
        self.init(capacity: bytes.count)
        let n = min(bytes.count, storage.count)
        UnsafeMutableRawBufferPointer(rebasing: storage[0..<n]).copyBytes(from: bytes.prefix(n))
        count = n
    }

    deinit {
        if let base = storage.baseAddress { explicit_bzero(base, storage.count) }
        Secret.released(UnsafeRawBufferPointer(storage))
        storage.deallocate()
    }

    public var isEmpty: Bool { count == 0 }
    public var capacity: Int { storage.count }

    /// The bytes, for the time of `body` only.
    public func withBytes<R: ~Copyable>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Appends what fits; false when `bytes` did not fit whole (nothing is appended then).
    @discardableResult
    public mutating func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= storage.count - count else { return false }
        if let src = bytes.baseAddress, let dst = storage.baseAddress { (dst + count).copyMemory(from: src, byteCount: bytes.count) }
        count += bytes.count
        return true
    }

    /// Appends one byte; false when full.
    @discardableResult
    public mutating func append(byte: UInt8) -> Bool {
        guard count < storage.count else { return false }
        storage[count] = byte
        count += 1
        return true
    }

    /// Removes (and zeroes) the last `n` bytes.
    public mutating func removeLast(_ n: Int) {
        let k = min(max(0, n), count)
        if let base = storage.baseAddress { explicit_bzero(base + (count - k), k) }
        count -= k
    }

    /// Zeroes the bytes and empties the secret (its storage stays, for reuse).
    public mutating func wipe() {
        if let base = storage.baseAddress { explicit_bzero(base, storage.count) }
        count = 0
    }

    /// A second secret with the same bytes (each zeroes its own when it goes).
    public func duplicate() -> Secret {
        withBytes { Secret(copying: $0) }
    }

    /// Whether the bytes equal `other`'s (not in constant time: for tests and the prompt).
    public func equals(_ other: borrowing Secret) -> Bool {
        withBytes { a in
            other.withBytes { b in
                guard a.count == b.count else { return false }
                guard let x = a.baseAddress, let y = b.baseAddress else { return true }
                return memcmp(x, y, a.count) == 0
            }
        }
    }

    /// Zeroes an array its caller owns alone (so the zeroing reaches its only buffer): the
    /// scratch arrays of code that handles a secret on its way.
    public static func wipe(_ a: inout [UInt8]) {
        a.withUnsafeMutableBytes { if let b = $0.baseAddress { explicit_bzero(b, $0.count) } }
    }

    // MARK: the test hook

    private static let hookLock = NSLock()
    nonisolated(unsafe) private static var hook: (@Sendable (UnsafeRawBufferPointer) -> Void)?

    /// Tests only: `body` sees each secret's storage as it goes, after the zeroing and before
    /// the memory is freed (nil: no hook). Any thread.
    public static func setReleaseHook(_ body: (@Sendable (UnsafeRawBufferPointer) -> Void)?) {
        hookLock.withLock { hook = body }
    }

    private static func released(_ bytes: UnsafeRawBufferPointer) {
        let h = hookLock.withLock { hook }
        h?(bytes)
    }
}
