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
    /// The segment of each block handed out, by its address.
    private let segments = Mutex<[UInt: Int32]>([:])

    /// The one the viewer gives its sessions where the window will be on X11; the window's
    /// presenter asks it which segment a framebuffer's pixels are.
    public static let shared = X11ShmPixels()

    init() {}

    public func allocate(_ count: Int) -> UnsafeMutablePointer<UInt32> {
        let bytes = max(1, count) * 4
        let id = shmget(IPC_PRIVATE, bytes, IPC_CREAT | 0o600)
        if id >= 0 {
            let at = shmat(id, nil, 0)
            _ = shmctl(id, IPC_RMID, nil)
            if let at, at != UnsafeMutableRawPointer(bitPattern: -1) {
                segments.withLock { $0[UInt(bitPattern: at)] = id }
                return at.bindMemory(to: UInt32.self, capacity: count)
            }
        }
        return .allocate(capacity: count)
    }

    public func deallocate(_ pixels: UnsafeMutablePointer<UInt32>, count: Int) {
        if segments.withLock({ $0.removeValue(forKey: UInt(bitPattern: pixels)) }) != nil {
            _ = shmdt(pixels)
        } else {
            pixels.deallocate()
        }
    }

    /// The shared-memory id of `pixels`, nil when they came from the heap.
    func segment(of pixels: UnsafeMutablePointer<UInt32>) -> Int32? {
        segments.withLock { $0[UInt(bitPattern: pixels)] }
    }
}
