import Foundation
import RFB
import XCTest

/// The window on X11 shown straight from the framebuffer's shared memory (X11Presenter): the
/// real viewer under Xvfb against a real Xvnc, its screen captured with xwd. At 1:1 the picture
/// is the server's, with black around it; after the server resizes (new pixels, a new segment
/// for the X server to attach), and after the menu (drawn through SDL's surface) closes again.
/// The desktop is held once: SDL's window image is never written while nothing is over it.
final class X11SharedPresentInteropTests: XCTestCase {
    func workDir() throws -> URL {
        let d = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-shm-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: d) }
        return d
    }


    /// The local screen is the server's screen centred in black, within `timeout`.
    func assertShowsServer(_ server: VNCServer, local: Int, localSize: (w: Int, h: Int), dir: URL, _ what: String,
                           timeout: Double = 15, file: StaticString = #filePath, line: UInt = #line) {
        var diff = ImageDiff()
        var last: (RGBImage, RGBImage)?
        let same = poll(timeout: timeout, interval: 0.5) {
            guard let want = try? server.captureScreen(), let got = try? captureDisplay(":\(local)", in: dir) else { return false }
            var expected = RGBImage(width: localSize.w, height: localSize.h)
            let ox = (localSize.w - want.width) / 2, oy = (localSize.h - want.height) / 2
            for y in 0..<want.height { for x in 0..<want.width { expected.pixels[(y + oy) * localSize.w + x + ox] = want[x, y] } }
            last = (got, expected)
            diff = compareImages(got, expected)
            return diff.isEqual
        }
        let art = same ? nil : last.map { saveArtefacts("x11-shm-\(what)", ["viewer": $0.0, "expected": $0.1]) }
        XCTAssertTrue(same, "\(what): window vs server: \(diff); images in \(art?.path ?? "-")", file: file, line: line)
    }

    /// The files `pid` maps.
    func mappedFiles(_ pid: Int32) -> Set<String> {
        // read to the end: /proc files say they are empty
        let text = String(decoding: FileHandle(forReadingAtPath: "/proc/\(pid)/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        return Set(text.split(separator: "\n").compactMap { line in line.split(separator: " ", maxSplits: 5).last.map(String.init) })
    }

    /// Size and resident bytes of each System V shared-memory mapping of `pid`.
    func sharedSegments(_ pid: Int32) -> [(size: Int, rss: Int)] {
        // read to the end: /proc files say they are empty
        let text = String(decoding: FileHandle(forReadingAtPath: "/proc/\(pid)/smaps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        var out: [(Int, Int)] = []
        var inSeg = false, size = 0
        for l in text.split(separator: "\n") {
            let f = l.split(separator: " ", omittingEmptySubsequences: true)
            if let first = f.first, first.contains("-"), first.first?.isHexDigit == true {
                inSeg = l.contains("/SYSV")
            } else if inSeg, f.first == "Size:", f.count > 1 {
                size = (Int(f[1]) ?? 0) * 1024
            } else if inSeg, f.first == "Rss:", f.count > 1 {
                out.append((size, (Int(f[1]) ?? 0) * 1024))
            }
        }
        return out
    }

    func testWindowShowsTheFramebufferFromSharedMemory() throws {
        try InteropTools.need("xrandr")
        let dir = try workDir()
        let server = try startServer(.xvnc, VNCServer.Options())   // 1024x768, the scene with an xterm
        // Xvnc draws its cursor into the picture for a client whose pointer is elsewhere; xwd does not
        _ = try runTool("xdotool", ["mousemove", "0", "0"], in: dir, environment: ["DISPLAY": server.displayName])
        let size = (w: 1280, h: 1024)
        let local = try startLocalXvfb(avoiding: [server.display], size: "\(size.w)x\(size.h)", dir: dir)
        let viewer = try startViewerWindow(port: server.port, display: ":\(local)", dir: dir, ["--fullscreen", "--scale", "1:1"])
        XCTAssertTrue(poll(timeout: 10) { viewer.logTail(200).contains("X server reads the framebuffer's shared memory") },
                      "the presenter was made: \(viewer.logTail())")
        assertShowsServer(server, local: local, localSize: size, dir: dir, "first frame")

        // the desktop once: the framebuffer's segment resident, SDL's window image (5 MB) not
        let fbBytes = 1024 * 768 * 4, windowBytes = size.w * size.h * 4
        let segs = sharedSegments(viewer.pid)
        XCTAssertTrue(segs.contains { $0.size >= fbBytes && $0.size < windowBytes && $0.rss >= fbBytes }, "framebuffer segment: \(segs)")
        XCTAssertLessThan(segs.reduce(0) { $0 + $1.rss }, fbBytes + windowBytes / 4, "resident shared memory: \(segs)")
        // no text drawn yet: SDL2_ttf and the font libraries behind it are not mapped (CTTF)
        XCTAssertFalse(mappedFiles(viewer.pid).contains { $0.contains("libSDL2_ttf") || $0.contains("libfreetype") },
                       "text libraries mapped before any text")

        // the server changes its picture: damage shown from the same segment
        _ = try runTool("xsetroot", ["-solid", "#3366aa"], in: dir, environment: ["DISPLAY": server.displayName])
        assertShowsServer(server, local: local, localSize: size, dir: dir, "after a change")

        // the server resizes: new pixels, a new segment attached, black where the old desktop was
        let c = try DesktopSizeInteropTests.Client(server)
        XCTAssertTrue(try c.pump { _ in c.engine.server.screenLayout != nil }, "layout announced")
        try c.engine.requestDesktopSize(width: 800, height: 600, screens: [Screen(id: 1, x: 0, y: 0, width: 800, height: 600)])
        XCTAssertTrue(try c.pump { _ in !c.requestResults.isEmpty }, "a reply: \(c.events)")
        _ = try runTool("xdotool", ["mousemove", "0", "0"], in: dir, environment: ["DISPLAY": server.displayName])
        assertShowsServer(server, local: local, localSize: size, dir: dir, "after the resize")

        // the menu draws through SDL's surface; once it is gone the desktop is whole again
        let before = try captureDisplay(":\(local)", in: dir)
        _ = try runTool("xdotool", ["key", "F8"], in: dir, environment: ["DISPLAY": ":\(local)"])
        XCTAssertTrue(poll(timeout: 5, interval: 0.2) {
            (try? captureDisplay(":\(local)", in: dir)).map { !compareImages($0, before).isEqual } ?? false
        }, "the menu on screen: \(viewer.logTail())")
        XCTAssertTrue(mappedFiles(viewer.pid).contains { $0.contains("libSDL2_ttf-2.0.so.0") }, "SDL2_ttf opened for the menu")
        _ = try runTool("xdotool", ["key", "Escape"], in: dir, environment: ["DISPLAY": ":\(local)"])
        assertShowsServer(server, local: local, localSize: size, dir: dir, "after the menu")
    }
}
