import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Decorations on GNOME's compositor: mutter (--headless) has no xdg-decoration, so SDL 2.26 draws
/// the title bar through libdecor and its cairo plugin (which the package Recommends). mutter has no
/// screencopy for grim, so what the client does is read from its own protocol log (WAYLAND_DEBUG):
/// a title-bar subsurface above the content (the window geometry starts above it); a press on it
/// and a drag make libdecor ask `xdg_toplevel.move`, and the window is then where the drag took it
/// (the pointer lands on other surface-local coordinates); a drag on the right border asks
/// `xdg_toplevel.resize` and mutter configures a narrower window. The pointer is mutter's own
/// (org.gnome.Mutter.RemoteDesktop, scripts/wayland/mutter-pointer.c), moved relatively: mutter
/// offers absolute motion only with a screen cast stream.
final class WaylandDecorationInteropTests: XCTestCase {
    struct Enter { let surface: String; let x: Double, y: Double }

    func testTitleBarMoveAndResizeOnMutter() throws {
        try WaylandDesktop.skipUnlessAvailable(.mutter, tools: ["cc", "pkg-config", "setpriv"])
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-wldeco-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let tool = try WaylandDesktop.buildTool("mutter-pointer", "gio-2.0", dir).path

        var o = VNCServer.Options()
        o.content = .blank
        o.width = 640; o.height = 480
        let server = try startServer(.xvnc, o)
        let desktop = try startWaylandDesktop(.mutter, width: 1280, height: 800, dir: dir)
        let viewer = try startViewerOnWayland(desktop, port: server.port, dir: dir, environment: ["WAYLAND_DEBUG": "client"])
        let log = { viewer.log }

        func pointer(_ steps: String) throws {
            try desktop.runOnSessionBus(tool, steps.split(separator: " ").map(String.init), in: dir)
            Thread.sleep(forTimeInterval: 0.5)
        }
        func matches(_ pattern: String) -> [[String]] {
            guard let re = try? NSRegularExpression(pattern: pattern) else { return [] }
            let s = log()
            return re.matches(in: s, range: NSRange(s.startIndex..., in: s)).map { m in
                (1..<m.numberOfRanges).map { Range(m.range(at: $0), in: s).map { String(s[$0]) } ?? "" }
            }
        }
        func lastEnter() -> Enter? {
            matches(#"wl_pointer@\d+\.enter\(\d+, (wl_surface@\d+), ([\d.-]+), ([\d.-]+)\)"#).last
                .flatMap { m in Double(m[1]).flatMap { x in Double(m[2]).map { Enter(surface: m[0], x: x, y: $0) } } }
        }

        // the title bar: a subsurface of the content surface, the window geometry starting above the content
        let content = try XCTUnwrap(matches(#"get_subsurface\(new id wl_subsurface@\d+, wl_surface@\d+, (wl_surface@\d+)\)"#).first?.first,
                                    "libdecor made no subsurfaces (no plugin?): \(viewer.logTail())")
        let geometry = try XCTUnwrap(matches(#"set_window_geometry\(0, -(\d+), (\d+), (\d+)\)"#).last, "no window geometry above the content")
        let title = try XCTUnwrap(Int(geometry[0]))
        XCTAssertTrue(title >= 16 && title <= 64, "title bar height \(title)")
        XCTAssertFalse(log().contains("No plugins found"), "libdecor found its plugin")

        // where the content is: the pointer at the screen's middle lands at a surface-local point,
        // read until two probes agree: mutter zooms a new window in (its map animation), and the
        // window can be up before that ends (an enter at 321.25, 287.48, then 321, 278 twice)
        var settled: Enter?
        for _ in 0..<8 {
            try pointer("rel -4000 -4000 sleep 100 rel 640 400 sleep 200")
            let probe = lastEnter()
            if let p = probe, let f = settled, p.surface == f.surface, abs(p.x - f.x) < 0.01, abs(p.y - f.y) < 0.01 { break }
            settled = probe
        }
        let first = try XCTUnwrap(settled, "no pointer enter: \(viewer.logTail())")
        XCTAssertEqual(first.surface, content, "the middle of the screen is on the picture")
        let ox = 640 - first.x, oy = 400 - first.y

        // a drag on the title bar moves the window
        let tx = Int(ox + 100), ty = Int(oy - Double(title) / 2)
        try pointer("rel \(tx - 640) \(ty - 400) sleep 200 btn 272 1 sleep 100 rel 10 10 sleep 50 rel 30 40 sleep 50 rel 20 30 sleep 200 btn 272 0 sleep 200")
        XCTAssertFalse(matches(#"-> xdg_toplevel@\d+\.move\("#).isEmpty, "no move asked: \(viewer.logTail())")
        try pointer("rel -4000 -4000 sleep 100 rel 640 400 sleep 200")
        let moved = try XCTUnwrap(lastEnter())
        XCTAssertEqual(moved.surface, content)
        XCTAssertEqual(moved.x, first.x - 60, accuracy: 1, "moved right by the drag")
        XCTAssertEqual(moved.y, first.y - 80, accuracy: 1, "moved down by the drag")

        // a drag on the right border resizes it
        // the width now (mutter may have configured another than the first one asked)
        let width = try XCTUnwrap(matches(#"set_window_geometry\(0, -\d+, (\d+), \d+\)"#).last.flatMap { Double($0[0]) })
        let bx = Int(640 - moved.x + width + 5), by = Int(400 - moved.y + 100)
        let configures = matches(#"xdg_toplevel@\d+\.configure\((\d+), (\d+),"#).count
        try pointer("rel \(bx - 640) \(by - 400) sleep 200 btn 272 1 sleep 100 rel -20 0 sleep 50 rel -40 0 sleep 50 rel -40 0 sleep 300 btn 272 0 sleep 300")
        XCTAssertFalse(matches(#"-> xdg_toplevel@\d+\.resize\("#).isEmpty, "no resize asked: \(viewer.logTail())")
        let after = matches(#"xdg_toplevel@\d+\.configure\((\d+), (\d+),"#).dropFirst(configures).compactMap { Double($0[0]) }
        XCTAssertTrue(after.contains { $0 > 0 && $0 <= width - 90 }, "narrower after the resize: \(after), was \(width)")
        XCTAssertTrue(viewer.isRunning, viewer.logTail())
    }
}
