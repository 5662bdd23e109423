import XCTest
@testable import SDLViewer

/// The one place that picks a window's render path and SDL's video driver: each rule with the
/// probes given as values (the real compositors are in InteropTests' WaylandWindowInteropTests).
final class RenderPathTests: XCTestCase {
    let llvmpipe = "llvmpipe (LLVM 15.0.6, 256 bits)"

    func testGivenNoGPUThenX11TakesItsSurfaceAndWaylandOurShmBuffers() {
        XCTAssertEqual(RenderPath.choose(driver: "x11", renderDriver: nil, glRenderer: llvmpipe, rotated: false).0, .windowSurface)
        let (path, why) = RenderPath.choose(driver: "wayland", renderDriver: nil, glRenderer: llvmpipe, rotated: false)
        XCTAssertEqual(path, .waylandShm)
        XCTAssertTrue(why.contains("wayland, no GPU (llvmpipe"), why)
        XCTAssertTrue(why.contains("own wl_shm buffers"), why)
        // KMSDRM's surface is SDL's emulation through the same renderer
        XCTAssertEqual(RenderPath.choose(driver: "KMSDRM", renderDriver: nil, glRenderer: llvmpipe, rotated: false).0, .renderer)
    }

    func testGivenAGPUOrANamedDriverOrATurnedPictureThenSDLsRenderer() {
        XCTAssertEqual(RenderPath.choose(driver: "wayland", renderDriver: nil, glRenderer: "Mesa Intel(R) UHD Graphics 620", rotated: false).0, .renderer)
        XCTAssertEqual(RenderPath.choose(driver: "wayland", renderDriver: "opengles2", glRenderer: llvmpipe, rotated: false).0, .renderer)
        XCTAssertEqual(RenderPath.choose(driver: "wayland", renderDriver: nil, glRenderer: llvmpipe, rotated: true).0, .renderer)
    }

    func testGivenSoftwareAskedForThenWaylandUsesOurBuffersAndX11ItsSurface() {
        XCTAssertEqual(RenderPath.choose(driver: "wayland", renderDriver: "software", glRenderer: nil, rotated: false).0, .waylandShm)
        XCTAssertEqual(RenderPath.choose(driver: "x11", renderDriver: "software", glRenderer: nil, rotated: false).0, .windowSurface)
    }

    typealias Env = VideoDriverChoice.Environment

    func testGivenAWaylandCompositorWithoutASeatThenX11WhenItWorksElseAMessage() {
        let env = Env(sdlVideoDriver: "wayland", waylandDisplay: "wayland-1", display: ":5")
        guard case .use("x11", let why) = VideoDriverChoice.decide(env, x11Works: { true }, waylandSeat: { .missing }) else {
            return XCTFail("expected X11")
        }
        XCTAssertTrue(why.contains("offers no seat"), why)
        guard case .refuse(let m) = VideoDriverChoice.decide(env, x11Works: { false }, waylandSeat: { .missing }) else {
            return XCTFail("expected a refusal")
        }
        XCTAssertTrue(m.contains("offers no seat") && m.contains("X11"), m)
        // no DISPLAY, SDL would take Wayland as the only window system: the same check
        let noX = Env(sdlVideoDriver: nil, waylandDisplay: "wayland-1", display: nil)
        guard case .refuse = VideoDriverChoice.decide(noX, x11Works: { false }, waylandSeat: { .missing }) else {
            return XCTFail("expected a refusal")
        }
    }

    func testGivenASeatOrX11FirstOrAnotherDriverNamedThenSDLChoosesAsAlways() {
        let wl = Env(sdlVideoDriver: "wayland", waylandDisplay: "wayland-1", display: nil)
        XCTAssertEqual(VideoDriverChoice.decide(wl, x11Works: { false }, waylandSeat: { .offered }), .leave(nil))
        // SDL 2 takes a working X11 first: the compositor is never asked
        let both = Env(sdlVideoDriver: nil, waylandDisplay: "wayland-1", display: ":5")
        XCTAssertEqual(VideoDriverChoice.decide(both, x11Works: { true }, waylandSeat: { XCTFail("probed"); return .missing }), .leave(nil))
        let x11 = Env(sdlVideoDriver: "x11", waylandDisplay: "wayland-1", display: ":5")
        XCTAssertEqual(VideoDriverChoice.decide(x11, x11Works: { true }, waylandSeat: { XCTFail("probed"); return .missing }), .leave(nil))
        // unreachable: SDL's own error says why
        XCTAssertEqual(VideoDriverChoice.decide(wl, x11Works: { false }, waylandSeat: { .unreachable }), .leave(nil))
    }
}
