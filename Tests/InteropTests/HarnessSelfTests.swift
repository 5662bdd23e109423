import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// Proves the interop harness on its own, with no viewer: real servers start on loopback,
// show the scene, are captured identically twice, and are gone after stop().
final class HarnessSelfTests: XCTestCase {

    func testXvncShowsSettledSceneAndStops() throws {
        let t0 = Date()
        let server = try startServer(.xvnc)
        let started = Date().timeIntervalSince(t0)
        try checkSceneAndStop(server, started: started)
    }

    func testX11vncShowsSettledSceneAndStops() throws {
        let t0 = Date()
        let server = try startServer(.x11vnc)
        let started = Date().timeIntervalSince(t0)
        try checkSceneAndStop(server, started: started)
    }

    func testVncAuthIsOfferedByBothServers() throws {
        for kind in [VNCServer.Kind.xvnc, .x11vnc] {
            var o = VNCServer.Options()
            o.security = .vncAuth(password: "farcast1")
            o.content = .blank
            let server = try startServer(kind, o)
            let types = try securityTypes(port: server.port)
            XCTAssertTrue(types.contains(2), "\(kind): VncAuth (2) not offered, got \(types)")
            XCTAssertFalse(types.contains(1), "\(kind): None (1) offered despite a password, got \(types)")
            server.stop()
        }
        var o = VNCServer.Options()
        o.content = .blank
        let open = try startServer(.xvnc, o)
        XCTAssertEqual(try securityTypes(port: open.port), [1], "Xvnc without password should offer None only")
    }

    /// The XWD parser agrees with ImageMagick's reading of the same dump.
    /// A headless sway as farcast-wl: up, grim sees its whole output in device pixels (at scale 2
    /// too), swaymsg reaches it, and stop() ends it and removes its directory.
    func testWaylandDesktopStartsAndStops() throws {
        try WaylandDesktop.skipUnlessAvailable(.sway, tools: ["grim", "swaymsg"])
        let dir = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("farcast-interop-wl-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for scale in [1.0, 2.0] {
            let d = try WaylandDesktop.start(.sway, width: 640, height: 480, scale: scale, dir: dir)
            let shot = try d.screenshot(in: dir)
            XCTAssertEqual(shot.width, 640, "grim: device pixels at scale \(scale)")
            XCTAssertEqual(shot.height, 480)
            XCTAssertTrue(shot.pixels.allSatisfy { $0 & 0xFFFFFF == 0 }, "the bare output is black")
            let outputs = try d.swaymsg(["-t", "get_outputs", "-r"], in: dir)
            XCTAssertTrue(outputs.contains("\"scale\": \(Int(scale))"), outputs)
            d.stop()
            XCTAssertFalse(FileManager.default.fileExists(atPath: d.sessionDir), "session directory removed")
        }
    }

    func testXWDParserMatchesImageMagick() throws {
        var o = VNCServer.Options()
        o.content = .scene
        let server = try startServer(.xvnc, o)
        let xwd = server.workDir.appendingPathComponent("parser.xwd")
        try runTool("xwd", ["-root", "-silent", "-display", server.displayName, "-out", xwd.path], in: server.workDir)
        let mine = try XWD.parse(Data(contentsOf: xwd))
        let rgb = try runTool("convert", ["xwd:" + xwd.path, "-depth", "8", "rgb:-"], in: server.workDir).stdout
        XCTAssertEqual(rgb.count, server.width * server.height * 3)
        let bytes = [UInt8](rgb)
        var theirs = RGBImage(width: server.width, height: server.height)
        for i in 0..<theirs.pixels.count {
            theirs.pixels[i] = UInt32(bytes[3 * i]) << 16 | UInt32(bytes[3 * i + 1]) << 8 | UInt32(bytes[3 * i + 2])
        }
        let d = compareImages(mine, theirs)
        XCTAssertTrue(d.isEqual, "XWD parse vs ImageMagick: \(d)")
        // And with no xterm the screen is exactly the scene image.
        let scene = try Scene.image(width: server.width, height: server.height)
        XCTAssertTrue(compareImages(mine, scene).isEqual, "screen vs scene.png: \(compareImages(mine, scene))")
    }

    /// Both byte orders and a 16-bit format, from hand-made dumps.
    func testXWDParserByteOrdersAndMasks() throws {
        let px: [UInt32] = [0x112233, 0xFF0080, 0x00FF00, 0xABCDEF]
        for msb in [false, true] {
            for headerBE in [true, false] {
                let img = try XWD.parse(makeXWD(width: 2, height: 2, bpp: 32, msbFirst: msb, headerBigEndian: headerBE,
                                                masks: (0xFF0000, 0xFF00, 0xFF), pixels: px, pad: 8))
                XCTAssertEqual(img.pixels, px, "32 bpp msbFirst=\(msb) headerBE=\(headerBE)")
            }
        }
        // BGR masks: the masks, not an assumed layout, decide the channels.
        let bgr = px.map { ($0 & 0xFF) << 16 | ($0 & 0xFF00) | ($0 >> 16) }
        let img = try XWD.parse(makeXWD(width: 2, height: 2, bpp: 32, msbFirst: false, headerBigEndian: true,
                                        masks: (0xFF, 0xFF00, 0xFF0000), pixels: bgr, pad: 0))
        XCTAssertEqual(img.pixels, px)
        // RGB565, scaled up to 8 bits: 31 -> 255, 63 -> 255, 0 -> 0.
        let p565: [UInt32] = [0xF800, 0x07E0, 0x001F, 0xFFFF]
        let img16 = try XWD.parse(makeXWD(width: 2, height: 2, bpp: 16, msbFirst: true, headerBigEndian: true,
                                          masks: (0xF800, 0x07E0, 0x001F), pixels: p565, pad: 4))
        XCTAssertEqual(img16.pixels, [0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF])
    }

    func testPNGRoundTripAndImageMagickFile() throws {
        var img = RGBImage(width: 37, height: 23)
        for i in 0..<img.pixels.count { img.pixels[i] = UInt32(truncatingIfNeeded: i &* 2654435761) & 0xFF_FFFF }
        XCTAssertEqual(try PNG.decode(PNG.encode(img)), img)
        // The scene PNG is written by ImageMagick with adaptive filtering (all filter types);
        // check it against ImageMagick's own raw decoding.
        try InteropTools.skipUnlessAvailable()
        let url = try Scene.imageURL(width: 1024, height: 768)
        let mine = try PNG.read(path: url.path)
        let dir = FileManager.default.temporaryDirectory
        let rgb = [UInt8](try runTool("convert", [url.path, "-depth", "8", "rgb:-"], in: dir).stdout)
        XCTAssertEqual(rgb.count, 1024 * 768 * 3)
        var theirs = RGBImage(width: 1024, height: 768)
        for i in 0..<theirs.pixels.count {
            theirs.pixels[i] = UInt32(rgb[3 * i]) << 16 | UInt32(rgb[3 * i + 1]) << 8 | UInt32(rgb[3 * i + 2])
        }
        XCTAssertTrue(compareImages(mine, theirs).isEqual, "\(compareImages(mine, theirs))")
        XCTAssertGreaterThan(mine.distinctColours, 10_000)
    }

    func testCompareAndPSNR() {
        let a = RGBImage(width: 4, height: 2, pixels: [1, 2, 3, 4, 5, 6, 7, 8])
        var b = a
        b.pixels[0] |= 0xFF00_0000  // top byte ignored
        XCTAssertTrue(compareImages(a, b).isEqual)
        XCTAssertEqual(psnr(a, b), .infinity)
        b.pixels[5] = 0x00FF_FFFF
        let d = compareImages(a, b)
        XCTAssertEqual(d.differing, 1)
        XCTAssertEqual(d.samples.first?.x, 1)
        XCTAssertEqual(d.samples.first?.y, 1)
        XCTAssertTrue(compareImages(a, b, excluding: (1, 1, 1, 1)).isEqual)
        XCTAssertLessThan(psnr(a, b), 20)
    }

    // MARK: helpers

    private func checkSceneAndStop(_ server: VNCServer, started: TimeInterval) throws {
        XCTAssertEqual(server.host, "127.0.0.1")
        let banner = Loopback.rfbBanner(port: server.port)
        XCTAssertTrue(banner?.hasPrefix("RFB 003.00") == true, "banner: \(banner ?? "none")")

        let t1 = Date()
        let first = try server.captureScreen()
        let captureTime = Date().timeIntervalSince(t1)
        Thread.sleep(forTimeInterval: 0.3)
        let second = try server.captureScreen()
        XCTAssertEqual(first.width, server.width)
        XCTAssertEqual(first.height, server.height)
        XCTAssertTrue(compareImages(first, second).isEqual, "screen changed between captures: \(compareImages(first, second))")
        XCTAssertGreaterThan(first.distinctColours, 10_000, "the scene is not on the screen")
        let photo = first.crop(x: 16, y: 16, width: 560, height: 350)
        XCTAssertGreaterThan(photo.distinctColours, 5_000, "the photograph region is flat")
        let scene = try Scene.image(width: server.width, height: server.height)
        let f = Scene.xtermFrame
        XCTAssertTrue(compareImages(first, scene, excluding: (f.x, f.y, f.w, f.h)).isEqual)
        let term = first.crop(x: f.x, y: f.y, width: f.w, height: f.h)
        XCTAssertNotEqual(term, scene.crop(x: f.x, y: f.y, width: f.w, height: f.h), "no xterm")
        XCTAssertTrue(term.pixels.contains(0x0000CD) || term.pixels.contains(0x0000EE), "xterm's blue cell missing")

        // Only 127.0.0.1: the listening socket must not be on any other address.
        XCTAssertEqual(listeningAddresses(port: server.port), ["127.0.0.1"])

        let pids = [server.vncProcess.pid]
        let t2 = Date()
        server.stop()
        let stopTime = Date().timeIntervalSince(t2)
        XCTAssertFalse(server.isRunning)
        XCTAssertFalse(Loopback.isListening(port: server.port), "port \(server.port) still open after stop")
        for pid in pids { XCTAssertFalse(processExists(pid), "pid \(pid) still alive") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: XDisplays.lockPath(server.display)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: XDisplays.socketPath(server.display)))
        print(String(format: "%@: start %.2fs, capture %.3fs, stop %.2fs", server.kind.rawValue, started, captureTime, stopTime))
    }

    private func processExists(_ pid: Int32) -> Bool {
        // A zombie still answers kill(0); look at its state too.
        guard kill(pid, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !stat.contains(") Z ")
    }

    /// Local addresses with a TCP socket listening on `port`, from /proc/net/tcp and tcp6.
    private func listeningAddresses(port: Int) -> [String] {
        var found: [String] = []
        let hexPort = String(format: "%04X", port)
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n").dropFirst() {
                let cols = line.split(separator: " ")
                guard cols.count > 3, cols[3] == "0A" else { continue }  // 0A = LISTEN
                let local = cols[1].split(separator: ":")
                guard local.count == 2, local[1] == hexPort else { continue }
                if local[0].count == 8, let v = UInt32(local[0], radix: 16) {
                    let b = withUnsafeBytes(of: v.littleEndian) { Array($0) }
                    found.append(b.map(String.init).joined(separator: "."))
                } else {
                    found.append("ipv6:" + local[0])
                }
            }
        }
        return found
    }

    /// Speaks just enough RFB 3.8 to read the server's list of security types.
    private func securityTypes(port: Int) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = Loopback.loopbackAddress(port: port)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw HarnessError("connect failed") }
        func read(_ n: Int) throws -> [UInt8] {
            var buf = [UInt8](repeating: 0, count: n), got = 0
            while got < n {
                let r = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, n - got, 0) }
                guard r > 0 else { throw HarnessError("short read") }
                got += r
            }
            return buf
        }
        _ = try read(12)
        let hello = Array("RFB 003.008\n".utf8)
        _ = hello.withUnsafeBytes { send(fd, $0.baseAddress, 12, 0) }
        let count = Int(try read(1)[0])
        guard count > 0 else { throw HarnessError("server refused: no security types") }
        return try read(count)
    }

    private func makeXWD(width: Int, height: Int, bpp: Int, msbFirst: Bool, headerBigEndian: Bool,
                         masks: (UInt32, UInt32, UInt32), pixels: [UInt32], pad: Int) -> Data {
        let name = Array("test\0".utf8)
        let bytesPerLine = width * bpp / 8 + pad
        let fields: [UInt32] = [
            UInt32(100 + name.count), 7, 2, UInt32(bpp == 16 ? 16 : 24), UInt32(width), UInt32(height), 0,
            msbFirst ? 1 : 0, 32, msbFirst ? 1 : 0, 32, UInt32(bpp), UInt32(bytesPerLine), 4,
            masks.0, masks.1, masks.2, 8, 0, 0, UInt32(width), UInt32(height), 0, 0, 0,
        ]
        var out: [UInt8] = []
        for f in fields {
            let v = headerBigEndian ? f.bigEndian : f.littleEndian
            out += withUnsafeBytes(of: v) { Array($0) }
        }
        out += name
        for y in 0..<height {
            for x in 0..<width {
                let p = pixels[y * width + x]
                var bytes = (0..<(bpp / 8)).map { UInt8((p >> (8 * UInt32($0))) & 0xFF) }  // LSB first
                if msbFirst { bytes.reverse() }
                out += bytes
            }
            out += [UInt8](repeating: 0xEE, count: pad)
        }
        return Data(out)
    }
}
