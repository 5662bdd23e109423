import Foundation
import XCTest
import RFB
import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// Apple Remote Desktop authentication (type 30) end to end against a reference server written
/// in Python (below). It is a stand-in: there is no macOS here and Debian has no server speaking
/// type 30. It follows what macOS Screen Sharing does as documented by the open implementations
/// (the RFB community specification's "Apple Remote Desktop" section, libvncserver/gtk-vnc's
/// clients): the RFB 003.889 banner, Diffie-Hellman over the 1024-bit Oakley group 2 prime with
/// generator 2, key = MD5 of the shared secret, the 128-byte user name/password block (64 bytes
/// each, NUL-terminated) AES-128-ECB encrypted, then SecurityResult with a reason on failure.
/// Its DH and AES come from Python's integers and `cryptography`, independently of the Swift code.
final class SecurityARDInteropTests: XCTestCase {
    static let script = #"""
# Apple Remote Desktop (security type 30) reference server for Farcast's tests (a stand-in for
# macOS Screen Sharing). usage: ardserver.py PORTFILE USER PASSWORD
import socket, struct, sys, os, hashlib
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

P = int("FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
        "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
        "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF", 16)
G = 2
LEN = 128
W, H = 64, 48

def read(s, n):
    b = b""
    while len(b) < n:
        d = s.recv(n - len(b))
        if not d: raise EOFError()
        b += d
    return b

def pixel(x, y): return (x * 4) & 255, (y * 5) & 255, ((x + y) * 2) & 255

def serve(s, user, pw):
    s.sendall(b"RFB 003.889\n")
    v = read(s, 12)
    print("client version", v, flush=True)
    s.sendall(bytes([1, 30]))
    if read(s, 1)[0] != 30: return
    priv = int.from_bytes(os.urandom(LEN), "big") % (P - 2) + 1
    pub = pow(G, priv, P)
    s.sendall(struct.pack(">HH", G, LEN) + P.to_bytes(LEN, "big") + pub.to_bytes(LEN, "big"))
    block = read(s, 128)
    cpub = int.from_bytes(read(s, LEN), "big")
    if not 1 < cpub < P - 1: print("bad client public value", flush=True); return
    key = hashlib.md5(pow(cpub, priv, P).to_bytes(LEN, "big")).digest()
    d = Cipher(algorithms.AES(key), modes.ECB()).decryptor()
    plain = d.update(block) + d.finalize()
    u = plain[:64].split(b"\0")[0]; p = plain[64:].split(b"\0")[0]
    if u != user.encode() or p != pw.encode():
        print("login refused", flush=True)
        reason = b"Authentication failed: user name or password incorrect"
        s.sendall(struct.pack(">II", 1, len(reason)) + reason); return
    print("login ok", flush=True)
    s.sendall(struct.pack(">I", 0))
    read(s, 1)  # ClientInit
    name = b"ard-test"
    pf = bytes([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0])
    s.sendall(struct.pack(">HH", W, H) + pf + struct.pack(">I", len(name)) + name)
    px = b"".join(bytes([b, g, r, 0]) for y in range(H) for x in range(W) for (r, g, b) in [pixel(x, y)])
    while True:
        t = read(s, 1)[0]
        if t == 0: read(s, 19)
        elif t == 2: _, n = struct.unpack(">BH", read(s, 3)); read(s, 4 * n)
        elif t == 3:
            if read(s, 9)[0]: continue   # incremental: nothing changed
            s.sendall(bytes([0, 0]) + struct.pack(">H", 1) + struct.pack(">HHHHi", 0, 0, W, H, 0) + px)
        elif t == 4: read(s, 7)
        elif t == 5: read(s, 5)
        else: return

def main():
    portfile, user, pw = sys.argv[1], sys.argv[2], sys.argv[3]
    ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); ls.bind(("127.0.0.1", 0)); ls.listen(4)
    tmp = portfile + ".tmp"; open(tmp, "w").write(str(ls.getsockname()[1])); os.rename(tmp, portfile)
    while True:
        s, _ = ls.accept()
        try: serve(s, user, pw)
        except Exception as e: print("connection ended:", repr(e), flush=True)
        finally: s.close()

main()
"""#

    struct ARDServer { let port: Int; let process: ChildProcess; let dir: URL }

    func start(user: String, password: String) throws -> ARDServer {
        guard let py = InteropTools.path("python3") else { throw XCTSkip("python3 missing") }
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-ard-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let scriptURL = dir.appendingPathComponent("ardserver.py")
        try SecurityARDInteropTests.script.write(to: scriptURL, atomically: true, encoding: .utf8)
        let portFile = dir.appendingPathComponent("port").path
        let p = try ChildProcess(name: "ardserver", executable: py, arguments: [scriptURL.path, portFile, user, password],
                                 logURL: dir.appendingPathComponent("log"))
        addTeardownBlock { p.stop(); try? FileManager.default.removeItem(at: dir) }
        guard poll(timeout: 30, { FileManager.default.fileExists(atPath: portFile) }),
              let port = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "") else {
            throw HarnessError("reference ARD server did not start: \(p.logTail())")
        }
        return ARDServer(port: port, process: p, dir: dir)
    }

    /// As the command line builds them from VNC_USERNAME / VNC_PASSWORD.
    func options(port: Int, user: String, password: String) throws -> SnapshotOptions {
        var o = SnapshotOptions()
        o.settings.securityMethods = try SecurityMethod.parseList("ARD")
        o.settings.encodings = [Encoding.raw]
        o.settings.username = user
        o.settings.password = Array(password.utf8)
        o.settings.serverName = "127.0.0.1"
        o.settings.serverPort = port
        o.quietSeconds = 0.3
        o.maxSeconds = 20
        return o
    }

    func testSnapshotLogsInAndGetsThePixels() throws {
        let s = try start(user: "alice", password: "s3cret pass")
        let r = try Snapshot.capture(HostSpec(host: "127.0.0.1", port: s.port), options: try options(port: s.port, user: "alice", password: "s3cret pass"))
        XCTAssertEqual(r.securityType, SecurityType.appleRemoteDesktop)
        XCTAssertEqual(r.desktopName, "ard-test")
        XCTAssertEqual(r.framebuffer.width, 64)
        XCTAssertEqual(r.framebuffer.height, 48)
        let px = r.framebuffer.snapshotPixels()
        XCTAssertEqual(px.count, 64 * 48)
        var wrong = 0
        for y in 0..<48 { for x in 0..<64 {
            let want = UInt32((x * 4) & 255) << 16 | UInt32((y * 5) & 255) << 8 | UInt32(((x + y) * 2) & 255)
            if px[y * 64 + x] & 0xffffff != want { wrong += 1 }
        } }
        XCTAssertEqual(wrong, 0, "pixels differ from the reference pattern")
        // the 3.889 banner was answered with 3.8
        XCTAssertTrue(s.process.logTail().contains("RFB 003.008"), s.process.logTail())
        XCTAssertTrue(s.process.logTail().contains("login ok"), s.process.logTail())
    }

    func testWrongPasswordAndWrongUserFailClearly() throws {
        let s = try start(user: "alice", password: "s3cret pass")
        for (u, p) in [("alice", "nope"), ("bob", "s3cret pass")] {
            XCTAssertThrowsError(try Snapshot.capture(HostSpec(host: "127.0.0.1", port: s.port), options: try options(port: s.port, user: u, password: p))) {
                let m = "\($0)"
                XCTAssertTrue(m.contains("authentication failed"), m)
                XCTAssertTrue(m.contains("Apple Remote Desktop"), m)
                XCTAssertTrue(m.contains("user name or password incorrect"), m)   // the server's reason
                XCTAssertFalse(m.contains(p), "password leaked: \(m)")
            }
        }
    }

    func testViewerSnapshotWithEnvironmentCredentials() throws {
        let s = try start(user: "alice", password: "s3cret pass")
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let viewer = [dir, dir.deletingLastPathComponent()].map { $0.appendingPathComponent("viewer") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
            ?? InteropTools.repoRoot.appendingPathComponent(".build/debug/viewer")
        func run(_ pw: String) throws -> (Int32, String) {
            let p = Process()
            p.executableURL = viewer
            let out = s.dir.appendingPathComponent("snap.png").path
            p.arguments = ["snapshot", "127.0.0.1::\(s.port)", "-o", out, "--encodings", "raw"]
            var env = ProcessInfo.processInfo.environment
            env["VNC_USERNAME"] = "alice"; env["VNC_PASSWORD"] = pw
            env["XDG_CONFIG_HOME"] = s.dir.appendingPathComponent("config").path
            env.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
            p.environment = env
            p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            let err = Pipe()
            p.standardError = err
            try p.run()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return (p.terminationStatus, text)
        }
        let ok = try run("s3cret pass")
        XCTAssertEqual(ok.0, 0, ok.1)
        let img = try PNG.read(path: s.dir.appendingPathComponent("snap.png").path)
        XCTAssertEqual(img.width, 64)
        XCTAssertEqual(img.height, 48)
        let bad = try run("nope")
        XCTAssertNotEqual(bad.0, 0)
        XCTAssertTrue(bad.1.contains("authentication failed"), bad.1)
        XCTAssertFalse(bad.1.contains("nope"), bad.1)
    }
}
