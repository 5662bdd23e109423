import CXCB
import Glibc
import RFB
import Synchronization

/// Framebuffer pixels in System V shared memory, so the X server can show them straight from
/// the framebuffer (`X11Presenter`: MIT-SHM PutImage) with no copy into a window surface of our
/// own, as vncviewer decodes into its XShm image. Each segment is marked for removal as soon as
/// it is attached (Linux lets the X server attach it still), so none outlives the process.
/// Where a segment cannot be had (a limit reached), the pixels come from the heap and the
/// window copies them as before. Any thread (the session thread allocates, the main thread asks).
public final class X11ShmPixels: PixelAllocator {
    /// The one the viewer gives its sessions where the window will be on X11; the window's
    /// presenter asks it which segment a framebuffer's pixels are.
    public static let shared = X11ShmPixels()

    /// A segment of ours, attached at the address `base` (kept as a number: the state is
    /// shared between threads, a pointer is not Sendable).
    struct Segment {
        var base: UInt; var id: Int32; var bytes: Int
        func detach() { _ = shmdt(UnsafeRawPointer(bitPattern: base)) }
    }
    private struct State {
        /// The segments handed out, by address.
        var inUse: [UInt: Segment] = [:]
        /// One given back during a burst of resizes, kept for the next: a fresh segment's pages
        /// fault in one by one (no huge pages for shared memory), 89 ms for 64 MiB here against
        /// 54 ms for the heap, and a server sending a resize an update would otherwise keep
        /// the session thread on page faults (HostileMemoryInteropTests).
        var spare: Segment?
        /// When the last segment was given back (monotonic seconds).
        var lastGivenBack = -Double.infinity
    }
    private let state = Mutex(State())
    /// Segments given back less than this apart are a burst; otherwise nothing is kept.
    static let burstSeconds = 1.0

    init() {}

    public func allocate(_ count: Int) -> UnsafeMutablePointer<UInt32> {
        let bytes = max(1, count) * 4
        let reused: Segment? = state.withLock { s in
            guard let spare = s.spare else { return nil }
            s.spare = nil
            // not one much larger than asked: its pages are all resident
            guard spare.bytes >= bytes && spare.bytes <= 2 * bytes else { spare.detach(); return nil }
            s.inUse[spare.base] = spare
            return spare
        }
        if let r = reused, let p = UnsafeMutableRawPointer(bitPattern: r.base) {
            return p.bindMemory(to: UInt32.self, capacity: count)
        }
        let id = shmget(IPC_PRIVATE, bytes, IPC_CREAT | 0o600)
        if id >= 0 {
            let at = shmat(id, nil, 0)
            _ = shmctl(id, IPC_RMID, nil)
            if let at, at != UnsafeMutableRawPointer(bitPattern: -1) {
                let seg = Segment(base: UInt(bitPattern: at), id: id, bytes: bytes)
                state.withLock { $0.inUse[seg.base] = seg }
                return at.bindMemory(to: UInt32.self, capacity: count)
            }
        }
        return .allocate(capacity: count)
    }

    public func deallocate(_ pixels: UnsafeMutablePointer<UInt32>, count: Int) {
        let now = X11ShmPixels.monotonic()
        let done: Bool = state.withLock { s in
            guard let seg = s.inUse.removeValue(forKey: UInt(bitPattern: pixels)) else { return false }
            let burst = now - s.lastGivenBack < X11ShmPixels.burstSeconds
            s.lastGivenBack = now
            s.spare?.detach()
            s.spare = nil
            if burst { s.spare = seg } else { seg.detach() }
            return true
        }
        if !done { pixels.deallocate() }
    }

    /// The shared-memory id of `pixels`, nil when they came from the heap.
    func segment(of pixels: UnsafeMutablePointer<UInt32>) -> Int32? {
        state.withLock { $0.inUse[UInt(bitPattern: pixels)]?.id }
    }

    /// The segment kept for the next allocation, if any (tests).
    var spareBytes: Int? { state.withLock { $0.spare?.bytes } }

    private static func monotonic() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }
}
