import XCTest
@testable import SDLViewer

/// The pieces of the X11 shared-memory present that need no X server (the window itself:
/// InteropTests' X11SharedPresentInteropTests).
final class X11PresenterTests: XCTestCase {
    /// Segment ids name segments on this machine only: a forwarded display gets the copy path.
    func testOnlyLocalDisplaysAreShownFromSharedMemory() {
        for d in [":0", ":1.0", "unix:0", "/tmp/.X11-unix/X3"] { XCTAssertTrue(X11Presenter.isLocal(d), d) }
        for d in ["localhost:10.0", "host:0", "10.0.0.2:1", "[::1]:0", ""] { XCTAssertFalse(X11Presenter.isLocal(d), d) }
    }

    /// Pixels from a segment: writable, known by their address until given back, then unknown.
    func testSegmentsAreKnownUntilGivenBack() {
        let a = X11ShmPixels()
        let p = a.allocate(1920 * 1080)
        p.initialize(repeating: 0x00ff_8040, count: 1920 * 1080)
        XCTAssertEqual(p[1920 * 1080 - 1], 0x00ff_8040)
        let id = a.segment(of: p)
        XCTAssertNotNil(id, "shmget works here")
        // marked for removal at once: nothing outlives the process
        if let id {
            var ds = shmid_ds()
            XCTAssertEqual(shmctl(id, IPC_STAT, &ds), 0)
            XCTAssertNotEqual(Int32(ds.shm_perm.mode) & Int32(SHM_DEST), 0, "marked for removal")
            XCTAssertEqual(Int32(ds.shm_perm.mode) & 0o777, 0o600, "only we (and the X server, as us) may attach it")
        }
        a.deallocate(p, count: 1920 * 1080)
        XCTAssertNil(a.segment(of: p))
    }

    /// Resizes in a burst (a server resizing every update) reuse the last segment instead of
    /// faulting in a new one each time; one resize on its own keeps nothing.
    func testSegmentsReusedOnlyInABurstOfResizes() {
        let a = X11ShmPixels()
        let big = 1024 * 1024
        // one resize: the old pixels go, nothing is kept
        let first = a.allocate(big)
        let second = a.allocate(big)
        a.deallocate(first, count: big)
        XCTAssertNil(a.spareBytes, "a resize on its own keeps nothing")
        // a second resize within the burst time: the old segment is kept and reused
        let third = a.allocate(big - 100)
        a.deallocate(second, count: big)
        XCTAssertEqual(a.spareBytes, big * 4)
        let fourth = a.allocate(big - 50)
        XCTAssertEqual(fourth, second, "the kept segment is reused")
        XCTAssertNotNil(a.segment(of: fourth))
        XCTAssertNil(a.spareBytes)
        // not one more than twice the size asked for
        a.deallocate(third, count: big - 100)
        let small = a.allocate(1000)
        XCTAssertNotEqual(small, third)
        XCTAssertNil(a.spareBytes, "a segment far too large is let go, not kept")
        a.deallocate(fourth, count: big - 50)
        a.deallocate(small, count: 1000)
    }
}
