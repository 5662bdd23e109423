import Foundation
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

    func testGivenNoGPUDeviceThenX11AndWaylandDecideBeforeAnyRenderer() {
        let x11 = RenderPath.beforeRenderer(driver: "x11", renderDriver: nil, rotated: false, gpuDevice: false)
        XCTAssertEqual(x11?.0, .windowSurface)
        XCTAssertTrue(x11?.1.contains("OpenGL not started") == true, x11?.1 ?? "")
        XCTAssertEqual(RenderPath.beforeRenderer(driver: "wayland", renderDriver: nil, rotated: false, gpuDevice: false)?.0, .waylandShm)
        // a GPU, a driver named, a turned picture or KMSDRM: a renderer is made and asked
        XCTAssertNil(RenderPath.beforeRenderer(driver: "x11", renderDriver: nil, rotated: false, gpuDevice: true))
        XCTAssertNil(RenderPath.beforeRenderer(driver: "x11", renderDriver: "opengl", rotated: false, gpuDevice: false))
        XCTAssertNil(RenderPath.beforeRenderer(driver: "wayland", renderDriver: nil, rotated: true, gpuDevice: false))
        XCTAssertNil(RenderPath.beforeRenderer(driver: "KMSDRM", renderDriver: nil, rotated: false, gpuDevice: false))
        // software asked for: known at once, as `choose` says
        XCTAssertEqual(RenderPath.beforeRenderer(driver: "x11", renderDriver: "software", rotated: false, gpuDevice: true)?.0, .windowSurface)
    }

    func testAGPUDeviceIsARenderNodeOrNVIDIAsDevice() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gpu-\(UUID().uuidString)")
        let dri = root.appendingPathComponent("dri")
        try FileManager.default.createDirectory(at: dri, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        // a display-only device (simpledrm, a VM's framebuffer) has a card but no render node
        FileManager.default.createFile(atPath: dri.appendingPathComponent("card0").path, contents: nil)
        XCTAssertFalse(SoftwareGL.gpuDevicePresent(dri: dri.path, dev: root.path))
        FileManager.default.createFile(atPath: dri.appendingPathComponent("renderD128").path, contents: nil)
        XCTAssertTrue(SoftwareGL.gpuDevicePresent(dri: dri.path, dev: root.path))
        try FileManager.default.removeItem(at: dri)
        XCTAssertFalse(SoftwareGL.gpuDevicePresent(dri: dri.path, dev: root.path))
        FileManager.default.createFile(atPath: root.appendingPathComponent("nvidia0").path, contents: nil)
        XCTAssertTrue(SoftwareGL.gpuDevicePresent(dri: dri.path, dev: root.path))
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

    /// Where SDL will be on X11 the window follows the X server's keymap, and the command line
    /// does not ask the session for its layout (setxkbmap -query, 42 ms at start).
    func testX11IsExpectedWhereSDLTakesItFirstOrItIsNamed() {
        XCTAssertTrue(VideoDriverChoice.expectsX11(Env(sdlVideoDriver: nil, waylandDisplay: nil, display: ":5")))
        XCTAssertTrue(VideoDriverChoice.expectsX11(Env(sdlVideoDriver: nil, waylandDisplay: "wayland-1", display: ":5")),
                      "SDL 2 takes X11 first (XWayland)")
        XCTAssertTrue(VideoDriverChoice.expectsX11(Env(sdlVideoDriver: "X11", waylandDisplay: nil, display: ":5")))
        XCTAssertFalse(VideoDriverChoice.expectsX11(Env(sdlVideoDriver: "wayland", waylandDisplay: "wayland-1", display: ":5")))
        XCTAssertFalse(VideoDriverChoice.expectsX11(Env(sdlVideoDriver: nil, waylandDisplay: "wayland-1", display: nil)))
        XCTAssertFalse(VideoDriverChoice.expectsX11(Env(sdlVideoDriver: "kmsdrm", waylandDisplay: nil, display: ":5")))
        XCTAssertFalse(VideoDriverChoice.expectsX11(Env(sdlVideoDriver: nil, waylandDisplay: nil, display: "")))
    }
}
