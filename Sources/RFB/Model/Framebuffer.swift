#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Sets `count` pixels to `value`: 64 by a loop of pairs, then memcpy doubling what is done. As
/// fast as the optimiser's loop, and still fast in debug builds, where the generic
/// update(repeating:) costs a value-witness call per pixel (a 64-Mpixel fill took a second).
/// Pairs, because a loop of single pixels stayed scalar: short runs (RRE subrects, tile rows)
/// spent a tenth of CoRRE's decode in it.
@inline(__always) public func fillPixels(_ p: UnsafeMutablePointer<UInt32>, _ value: UInt32, _ count: Int) {
    let head = min(count, 64)
    let raw = UnsafeMutableRawPointer(p)
    let pair = UInt64(value) | UInt64(value) << 32   // equal halves: byte order does not matter
    var i = 0
    while i &+ 2 <= head { raw.storeBytes(of: pair, toByteOffset: i &* 4, as: UInt64.self); i &+= 2 }
    if i < head { p[i] = value }
    var done = head
    while done < count {
        let n = min(done, count - done)
        memcpy(p + done, p, n * 4)
        done += n
    }
}

/// Where a framebuffer's pixels come from and go back to. The default takes them from the heap
/// and gives them back; whoever makes many short-lived framebuffers (the fuzz harness, one per
/// input) may keep and reuse them. Called on the thread that makes or resizes the framebuffer,
/// or the one that drops it.
public protocol PixelAllocator: Sendable {
    /// Room for `count` pixels (at least 1); the framebuffer writes every one before use.
    func allocate(_ count: Int) -> UnsafeMutablePointer<UInt32>
    /// Gives back what `allocate(count)` returned.
    func deallocate(_ pixels: UnsafeMutablePointer<UInt32>, count: Int)
}

/// Pixels from the heap.
public struct HeapPixels: PixelAllocator {
    public init() {}
    public func allocate(_ count: Int) -> UnsafeMutablePointer<UInt32> { .allocate(capacity: count) }
    public func deallocate(_ pixels: UnsafeMutablePointer<UInt32>, count: Int) { pixels.deallocate() }
}

/// The decoded remote screen: one contiguous buffer of XRGB pixels (SDL's XRGB8888, 0xXXRRGGBB),
/// `width` pixels per row, plus the damage recorded since the front end last took it.
/// The top byte means nothing and readers use the low 24 bits: decoders write it 0, except
/// JPEG rects, which TurboJPEG leaves 0xff. Clearing it was a second pass over every JPEG rect,
/// reading back what libjpeg-turbo had just written past the caches (its aligned stores are
/// non-temporal): 8-17 % of a JPEG session's CPU in the window.
/// Guarded by `lock`: the engine holds it for one rect (or a resize) at a time, the front end
/// while it reads pixels and damage.
public final class Framebuffer: @unchecked Sendable {
    /// Kept with the value it guards.
    public let lock = FramebufferLock()
    // read by every decoder for every rect: no runtime exclusivity check (see ClientEngine);
    // changed only by `resize`, under the lock held alone
    @exclusivity(unchecked) public private(set) var width: Int
    @exclusivity(unchecked) public private(set) var height: Int
    @exclusivity(unchecked) public private(set) var pixels: UnsafeMutablePointer<UInt32>
    /// Guarded by `damageLock`: decoders sharing `lock` add damage side by side.
    @exclusivity(unchecked) private var damage: [Rect] = []
    private let damageLock = PthreadMutex()
    /// Guarded by `damageLock`: see `paintedArea`.
    @exclusivity(unchecked) private var painted = 0
    /// Where the last damage went (a hint, checked against the count).
    @exclusivity(unchecked) private var lastMerged = 0
    /// Damage lists longer than this collapse into fewer rects (uploads of a few big rects beat many tiny ones).
    static let maxDamageRects = 64

    /// Where the pixels come from (the heap unless the maker says otherwise).
    private let allocator: any PixelAllocator

    public init(width: Int, height: Int, allocator: any PixelAllocator = HeapPixels()) {
        self.width = max(0, width); self.height = max(0, height)
        self.allocator = allocator
        pixels = Framebuffer.zeroed(max(1, self.width * self.height), allocator)
    }

    deinit { allocator.deallocate(pixels, count: max(1, width * height)) }

    /// Black pixels. Every page is written now, at ServerInit, so the first update (the whole
    /// screen, which the user waits for) does not take the page faults: left to the first
    /// update, they cost a Raw snapshot 0.004 -> 0.011 CPU s. (calloc would leave them, and the
    /// optimiser drops a memset of zeros after calloc or folds malloc + memset into calloc, so
    /// this is allocate and initialize.)
    private static func zeroed(_ n: Int, _ allocator: any PixelAllocator) -> UnsafeMutablePointer<UInt32> {
        let p = allocator.allocate(n)
        p.initialize(repeating: 0, count: n)
        return p
    }

    public var bounds: Rect { Rect(x: 0, y: 0, w: width, h: height) }

    /// New size: contents are kept where they overlap, the rest is black, all damaged. The
    /// caller holds the lock; `resizedPixels` and `adopt` split it for one that does not.
    public func resize(width w: Int, height h: Int) {
        guard w != width || h != height else { return }
        adopt(resizedPixels(width: w, height: h), width: w, height: h)
    }

    /// The pixels of a resize, made without the lock (its slow part: up to 256 MiB allocated,
    /// cleared and copied, while the front end keeps reading the old ones): the old pixels
    /// where they overlap (and lie within `keepWidth`x`keepHeight`), black elsewhere. Only the
    /// thread that writes pixels may call it, with no decoder at work, so the old pixels hold
    /// still while it reads them.
    public func resizedPixels(width w: Int, height h: Int, keepWidth: Int = .max, keepHeight: Int = .max) -> UnsafeMutablePointer<UInt32> {
        let cw = max(0, min(w, width, keepWidth)), ch = max(0, min(h, height, keepHeight))
        // each pixel written once (every page touched now, as `zeroed` does): copied, or black
        let np = allocator.allocate(max(1, w * h))
        if w * h == 0 { np.initialize(to: 0) }
        for y in 0..<h {
            let row = np + y * w
            if y < ch {
                row.initialize(from: pixels + y * width, count: cw)
                if w > cw { fillPixels(row + cw, 0, w - cw) }
            } else {
                fillPixels(row, 0, w)
            }
        }
        return np
    }

    /// Under the writer lock: `resizedPixels(width: w, height: h)` become the framebuffer.
    public func adopt(_ np: UnsafeMutablePointer<UInt32>, width w: Int, height h: Int) {
        allocator.deallocate(pixels, count: max(1, width * height))
        pixels = np; width = w; height = h
        damageLock.locked { damage = [bounds]; painted = 0 }
    }

    /// True when `r` lies inside the framebuffer (checked with Int math: no 16-bit overflow).
    @inline(__always) public func contains(_ r: Rect) -> Bool {
        r.x >= 0 && r.y >= 0 && r.w >= 0 && r.h >= 0 && r.x + r.w <= width && r.y + r.h <= height
    }

    @inline(__always) public func row(_ y: Int) -> UnsafeMutablePointer<UInt32> { pixels + y * width }

    /// Pixels a fill or copy does between chances for a waiting reader: a few bytes from the
    /// server can ask for a 64-Mpixel fill, and the window should not wait for all of it.
    static let bandPixels = 1 << 20

    /// Rows per band for a rect `w` wide.
    @inline(__always) func bandRows(_ w: Int) -> Int { max(1, Framebuffer.bandPixels / max(1, w)) }

    /// Caller has checked `contains(r)` and holds the writer lock (yielded between bands).
    @inline(__always) public func fill(_ r: Rect, _ pixel: UInt32) {
        if r.area <= Framebuffer.bandPixels {
            // the common case (subrects, tiles): no bands
            // the properties read once: each read of a class property is a runtime
            // exclusivity check, which cost a fifth of CoRRE's decode when done per row
            let stride = width
            var d = pixels + r.y * stride + r.x
            for _ in 0..<r.h { fillPixels(d, pixel, r.w); d += stride }
        } else {
            fillInBands(r, pixel)
        }
    }

    private func fillInBands(_ r: Rect, _ pixel: UInt32) {
        let band = bandRows(r.w)
        var y = r.y
        while y < r.maxY {
            let end = min(r.maxY, y + band)
            for row in y..<end { fillPixels(pixels + row * width + r.x, pixel, r.w) }
            y = end
            if y < r.maxY { lock.yieldToReaders() }
        }
    }

    /// CopyRect: caller has checked both rects. Overlapping copies go in the safe direction.
    public func copy(from sx: Int, _ sy: Int, to r: Rect) {
        if r.isEmpty { return }
        // small copies (the common case) never stop for a reader
        let band = r.area <= Framebuffer.bandPixels ? Int.max : bandRows(r.w)
        if sy < r.y {
            for y in stride(from: r.h - 1, through: 0, by: -1) {
                if band != Int.max && y % band == 0 { lock.yieldToReaders() }
                (pixels + (r.y + y) * width + r.x).update(from: pixels + (sy + y) * width + sx, count: r.w)
            }
        } else {
            for y in 0..<r.h {
                if band != Int.max && y % band == band - 1 { lock.yieldToReaders() }
                // update(from:) is memmove-safe for the same-row overlap case
                UnsafeMutableRawPointer(pixels + (r.y + y) * width + r.x)
                    .copyMemory(from: pixels + (sy + y) * width + sx, byteCount: r.w * 4)
            }
        }
    }

    /// Records `r` as changed since the last `takeDamage()`.
    public func addDamage(_ r: Rect) {
        let c = r.intersection(bounds)
        if c.isEmpty { return }
        damageLock.locked { merge(c); painted = min(painted + c.area, Int.max >> 1) }
    }

    /// Pixels the server's rects have painted since the framebuffer was made or last resized
    /// (overlaps count again): below `width * height`, part of it has never been painted. A
    /// snapshot waits for this, not for the first update, which may carry only pseudo-rects
    /// (QEMU answers the encodings with one at once, then takes a second to make the picture).
    public var paintedArea: Int { damageLock.locked { painted } }

    private func merge(_ c: Rect) {
        // Absorb into an existing rect when that adds little area; this keeps uploads few and large.
        // The rect that took the last one first: rects come in screen order, so it usually takes
        // this one too, and a list nobody takes (a snapshot) is not scanned 13 000 times.
        if lastMerged < damage.count, absorb(c, at: lastMerged) { return }
        for i in damage.indices where absorb(c, at: i) { lastMerged = i; return }
        damage.append(c)
        lastMerged = damage.count - 1
        if damage.count > Framebuffer.maxDamageRects {
            // Collapse by merging neighbours pairwise in y order.
            damage.sort { $0.y < $1.y }
            var merged: [Rect] = []
            var i = 0
            while i < damage.count {
                merged.append(i + 1 < damage.count ? damage[i].union(damage[i + 1]) : damage[i])
                i += 2
            }
            damage = merged
        }
    }

    private func absorb(_ c: Rect, at i: Int) -> Bool {
        let u = damage[i].union(c)
        if u.area <= damage[i].area + c.area + (c.area >> 1) { damage[i] = u; return true }
        return false
    }

    /// Hands the damage to the front end and starts a new list.
    public func takeDamage() -> [Rect] { damageLock.locked { defer { damage = [] }; return damage } }

    /// Copy of the pixels as 0x00RRGGBB (tests and snapshots).
    public func snapshotPixels() -> [UInt32] {
        [UInt32](unsafeUninitializedCapacity: width * height) { b, n in
            for i in 0..<(width * height) { b[i] = pixels[i] & 0x00ff_ffff }
            n = width * height
        }
    }
}

/// Decoders on one side, the front end on the other. Decoders share the lock: the session
/// thread and the decode workers (DecodeManager) hold it at once, each writing a region of its
/// own (the engine never lets rects in flight overlap). The front end takes it alone, so it never
/// reads a rect being written. A pthread rwlock that prefers its exclusive side: a waiting front
/// end holds back new decoders, and `readersWaiting` makes decoders yield before they start.
public final class FramebufferLock: @unchecked Sendable {
    private let rw: UnsafeMutablePointer<pthread_rwlock_t>
    private let readersWaiting = Atomic<Int>(0)
    /// How many times a writer yields to a waiting reader before taking the lock anyway.
    static let maxYields = 10_000

    public init() {
        rw = .allocate(capacity: 1)
        rw.initialize(to: pthread_rwlock_t())
        var attr = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attr)
        pthread_rwlockattr_setkind_np(&attr, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(rw, &attr)
        pthread_rwlockattr_destroy(&attr)
    }
    deinit { pthread_rwlock_destroy(rw); rw.deallocate() }

    private func waitForReaders() {
        var yields = 0
        while readersWaiting.load(ordering: .acquiring) > 0 && yields < FramebufferLock.maxYields {
            sched_yield()
            yields += 1
        }
    }

    /// The decoders' side (session thread, decode workers), around one rect. Never wait for
    /// another decoder while holding it: a front end waiting in between would hold both.
    public func withWriterLock<T>(_ body: () throws -> T) rethrows -> T {
        waitForReaders()
        pthread_rwlock_rdlock(rw)
        defer { pthread_rwlock_unlock(rw) }
        return try body()
    }

    /// Inside `withWriterLock`: lets a reader that waits have the lock, then takes it back.
    /// Readers may then see a rect half done; its damage is recorded when it is finished.
    public func yieldToReaders() {
        guard readersWaiting.load(ordering: .acquiring) > 0 else { return }
        pthread_rwlock_unlock(rw)
        waitForReaders()
        pthread_rwlock_rdlock(rw)
    }

    /// The front end's side when it must not wait: nil while a rect is being decoded.
    public func withReaderLockIfFree<T>(_ body: () throws -> T) rethrows -> T? {
        guard pthread_rwlock_trywrlock(rw) == 0 else { return nil }
        defer { pthread_rwlock_unlock(rw) }
        return try body()
    }

    /// The front end's side (any other thread): waits at most for the rects being decoded.
    public func withReaderLock<T>(_ body: () throws -> T) rethrows -> T {
        readersWaiting.add(1, ordering: .acquiringAndReleasing)
        pthread_rwlock_wrlock(rw)
        readersWaiting.subtract(1, ordering: .acquiringAndReleasing)
        defer { pthread_rwlock_unlock(rw) }
        return try body()
    }
}
