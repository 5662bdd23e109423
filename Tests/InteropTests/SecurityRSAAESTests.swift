import Foundation
import XCTest
import RFB
import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// RSA-AES against a reference server written in Python on `cryptography` (below), a stand-in:
/// Debian 12's TigerVNC 1.12 predates RSA-AES (1.13) and Debian ships no RealVNC or wayvnc
/// with it. The reference builds EAX from AES-CTR and CMAC independently of the Swift code.
final class SecurityRSAAESTests: XCTestCase {
    static let script = #"""
# RSA-AES (RA2/RA2ne/RA2_256/RA2ne_256) reference server for Farcast's tests, written from the
# RFB specification's RSA-AES section and TigerVNC's behaviour, on Python's `cryptography`.
# EAX is built here from AES-CTR and CMAC independently of the Swift code.
# usage: ra2server.py PORTFILE TYPE USER PASSWORD [KEYBITS] [KEYFILE]
import socket, struct, sys, os, hashlib
from cryptography.hazmat.primitives.asymmetric import rsa, padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.cmac import CMAC
from cryptography.hazmat.primitives import serialization

def omac(key, t, m):
    c = CMAC(algorithms.AES(key)); c.update(bytes(15) + bytes([t]) + m); return c.finalize()
def ctr(key, iv, data):
    e = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor(); return e.update(data) + e.finalize()
def eax_seal(key, nonce, header, pt):
    n = omac(key, 0, nonce); h = omac(key, 1, header); c = ctr(key, n, pt); cm = omac(key, 2, c)
    return c + bytes(a ^ b ^ d for a, b, d in zip(n, h, cm))
def eax_open(key, nonce, header, ct, tag):
    n = omac(key, 0, nonce); h = omac(key, 1, header); cm = omac(key, 2, ct)
    if bytes(a ^ b ^ d for a, b, d in zip(n, h, cm)) != tag: raise Exception("bad tag")
    return ctr(key, n, ct)

class Conn:
    def __init__(s, sock): s.sock = sock; s.buf = b""; s.rx = None; s.tx = None; s.rxn = 0; s.txn = 0; s.plain = b""
    def rawread(s, n):
        while len(s.buf) < n:
            d = s.sock.recv(65536)
            if not d: raise EOFError()
            s.buf += d
        r, s.buf = s.buf[:n], s.buf[n:]; return r
    def read(s, n):
        if s.rx is None: return s.rawread(n)
        while len(s.plain) < n:
            hdr = s.rawread(2); ln = struct.unpack(">H", hdr)[0]
            ct = s.rawread(ln); tag = s.rawread(16)
            s.plain += eax_open(s.rx, s.rxn.to_bytes(16, "little"), hdr, ct, tag); s.rxn += 1
        r, s.plain = s.plain[:n], s.plain[n:]; return r
    def write(s, data):
        if s.tx is None: s.sock.sendall(data); return
        hdr = struct.pack(">H", len(data))
        s.sock.sendall(hdr + eax_seal(s.tx, s.txn.to_bytes(16, "little"), hdr, data)); s.txn += 1

def serve(c, sectype, user, pw, key, bits):
    keep = sectype in (5, 129); aes = 256 if sectype in (129, 130) else 128
    H = hashlib.sha256 if aes == 256 else hashlib.sha1
    c.write(b"RFB 003.008\n"); c.read(12)
    c.write(bytes([1, sectype]))
    if c.read(1)[0] != sectype: return
    size = (bits + 7) // 8
    pub = key.public_key().public_numbers()
    sN = pub.n.to_bytes(size, "big"); sE = pub.e.to_bytes(size, "big")
    c.write(struct.pack(">I", bits) + sN + sE)
    cbits = struct.unpack(">I", c.read(4))[0]; csize = (cbits + 7) // 8
    cN = c.read(csize); cE = c.read(csize)
    ln = struct.unpack(">H", c.read(2))[0]
    crandom = key.decrypt(c.read(ln), padding.PKCS1v15())
    assert len(crandom) == aes // 8
    srandom = os.urandom(aes // 8)
    cpub = rsa.RSAPublicNumbers(int.from_bytes(cE, "big"), int.from_bytes(cN, "big")).public_key()
    enc = cpub.encrypt(srandom, padding.PKCS1v15())
    c.write(struct.pack(">H", len(enc)) + enc)
    c.tx = H(crandom + srandom).digest()[:aes // 8]
    c.rx = H(srandom + crandom).digest()[:aes // 8]
    c.write(H(struct.pack(">I", bits) + sN + sE + struct.pack(">I", cbits) + cN + cE).digest())
    got = c.read(H().digest_size)
    if got != H(struct.pack(">I", cbits) + cN + cE + struct.pack(">I", bits) + sN + sE).digest():
        print("client hash mismatch", flush=True); return
    sub = 1 if user else 2
    c.write(bytes([sub]))
    ul = c.read(1)[0]; u = c.read(ul).decode(); pl = c.read(1)[0]; p = c.read(pl).decode()
    if not keep: c.rx = None; c.tx = None
    if (user and u != user) or p != pw:
        reason = b"Authentication failed"
        c.write(struct.pack(">I", 1) + struct.pack(">I", len(reason)) + reason); return
    c.write(struct.pack(">I", 0))
    c.read(1)  # ClientInit
    name = b"ra2-test"
    pf = bytes([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0])
    c.write(struct.pack(">HH", 4, 2) + pf + struct.pack(">I", len(name)) + name)
    while True:
        t = c.read(1)[0]
        if t == 0: c.read(19)
        elif t == 2: _, n = struct.unpack(">BH", c.read(3)); c.read(4 * n)
        elif t == 3:
            if c.read(9)[0]: continue   # incremental: nothing changed
            px = b"".join(bytes([b, g, r, 0]) for (r, g, b) in [(255,0,0),(0,255,0),(0,0,255),(255,255,255),(1,2,3),(10,20,30),(200,100,50),(0,0,0)])
            c.write(bytes([0, 0]) + struct.pack(">H", 1) + struct.pack(">HHHHi", 0, 0, 4, 2, 0) + px)
        elif t == 4: c.read(7)
        elif t == 5: c.read(5)
        else: return

def main():
    portfile, sectype, user, pw = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    bits = int(sys.argv[5]) if len(sys.argv) > 5 else 2048
    keyfile = sys.argv[6] if len(sys.argv) > 6 else None
    if keyfile and os.path.exists(keyfile):
        key = serialization.load_pem_private_key(open(keyfile, "rb").read(), None)
    else:
        key = rsa.generate_private_key(65537, bits)
        if keyfile: open(keyfile, "wb").write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); ls.bind(("127.0.0.1", 0)); ls.listen(4)
    pub = key.public_key().public_numbers(); size = (bits + 7) // 8
    fp = hashlib.sha1(struct.pack(">I", bits) + pub.n.to_bytes(size, "big") + pub.e.to_bytes(size, "big")).digest()[:8]
    open(portfile + ".fp", "w").write("-".join("%02x" % b for b in fp))
    tmp = portfile + ".tmp"; open(tmp, "w").write(str(ls.getsockname()[1])); os.rename(tmp, portfile)
    while True:
        s, _ = ls.accept()
        try: serve(Conn(s), sectype, user, pw, key, bits)
        except Exception as e: print("connection ended:", repr(e), flush=True)
        finally: s.close()

main()
"""#

    struct RA2Server { let port: Int; let fingerprint: String; let process: ChildProcess }

    func start(type: UInt8, user: String, password: String, bits: Int = 2048, keyFile: String? = nil) throws -> RA2Server {
        try SecurityRSAAESTests.start(for: self, type: type, user: user, password: password, bits: bits, keyFile: keyFile)
    }

    /// The reference server, stopped when `test` ends.
    static func start(for test: XCTestCase, type: UInt8, user: String, password: String, bits: Int = 2048,
                      keyFile: String? = nil) throws -> RA2Server {
        guard let py = InteropTools.path("python3") else { throw XCTSkip("python3 missing") }
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-ra2-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let scriptURL = dir.appendingPathComponent("ra2server.py")
        try SecurityRSAAESTests.script.write(to: scriptURL, atomically: true, encoding: .utf8)
        let portFile = dir.appendingPathComponent("port").path
        var args = [scriptURL.path, portFile, "\(type)", user, password, "\(bits)"]
        if let keyFile { args.append(keyFile) }
        let p = try ChildProcess(name: "ra2server", executable: py, arguments: args, logURL: dir.appendingPathComponent("log"))
        test.addTeardownBlock { p.stop(); try? FileManager.default.removeItem(at: dir) }
        guard poll(timeout: 30, { FileManager.default.fileExists(atPath: portFile) }),
              let port = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? ""),
              let fp = try? String(contentsOfFile: portFile + ".fp", encoding: .utf8) else {
            throw HarnessError("reference RSA-AES server did not start: \(p.logTail())")
        }
        return RA2Server(port: port, fingerprint: fp, process: p)
    }

    func options(_ methods: String, port: Int, user: String?, password: String?, trust: TrustEvaluator?) throws -> SnapshotOptions {
        var o = SnapshotOptions()
        o.settings.securityMethods = try SecurityMethod.parseList(methods)
        o.settings.encodings = [Encoding.raw]
        o.settings.username = user
        o.settings.password = password.map { Array($0.utf8) }
        o.settings.serverName = "127.0.0.1"
        o.settings.serverPort = port
        o.trust = trust
        o.quietSeconds = 0.3
        o.maxSeconds = 20
        return o
    }

    func check(_ type: UInt8, name: String, user: String) throws {
        let s = try start(type: type, user: user, password: "pw-\(name)")
        let seen = Box<ServerIdentity>()
        let o = try options(name, port: s.port, user: user.isEmpty ? nil : user, password: "pw-\(name)",
                            trust: { seen.set($0); return .accept })
        let r = try Snapshot.capture(HostSpec(host: "127.0.0.1", port: s.port), options: o)
        XCTAssertEqual(r.securityType, type)
        XCTAssertEqual(r.framebuffer.width, 4)
        XCTAssertEqual(r.desktopName, "ra2-test")
        let px = r.framebuffer.snapshotPixels()
        XCTAssertEqual(px.count, 8)
        XCTAssertEqual(px.first.map { $0 & 0xffffff }, 0xff0000, "first pixel red")
        XCTAssertEqual(px.last.map { $0 & 0xffffff }, 0x000000)
        XCTAssertEqual(px[6] & 0xffffff, 0xc86432)
        // RealVNC's fingerprint form, as the reference computes it.
        XCTAssertEqual(seen.value?.displayFingerprint, s.fingerprint)
        XCTAssertEqual(seen.value?.kind, .rsa)
        // wrong password
        let bad = try options(name, port: s.port, user: user.isEmpty ? nil : user, password: "nope", trust: { _ in .accept })
        XCTAssertThrowsError(try Snapshot.capture(HostSpec(host: "127.0.0.1", port: s.port), options: bad)) {
            XCTAssertTrue("\($0)".contains("authentication failed"), "\($0)")
        }
    }

    func testRA2() throws { try check(SecurityType.ra2, name: "RA2", user: "pi") }
    func testRA2_256() throws { try check(SecurityType.ra2_256, name: "RA2_256", user: "pi") }
    func testRA2ne() throws { try check(SecurityType.ra2ne, name: "RA2ne", user: "") }
    func testRA2ne_256() throws { try check(SecurityType.ra2ne_256, name: "RA2ne_256", user: "pi") }

    func testUnknownKeyRefusedWithoutEvaluatorAndChangedKeyRefused() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("farcast-ra2kh-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let s = try start(type: SecurityType.ra2_256, user: "pi", password: "pw")
        XCTAssertThrowsError(try Snapshot.capture(HostSpec(host: "127.0.0.1", port: s.port),
                                                  options: try options("RA2_256", port: s.port, user: "pi", password: "pw", trust: nil))) {
            XCTAssertTrue("\($0)".contains(s.fingerprint), "\($0)")
        }
        let kh = KnownHosts(path: dir.appendingPathComponent("known_hosts").path)
        _ = try Snapshot.capture(HostSpec(host: "127.0.0.1", port: s.port),
                                 options: try options("RA2_256", port: s.port, user: "pi", password: "pw", trust: kh.evaluator(ask: { _ in true })))
        _ = try Snapshot.capture(HostSpec(host: "127.0.0.1", port: s.port),
                                 options: try options("RA2_256", port: s.port, user: "pi", password: "pw",
                                                      trust: kh.evaluator(ask: { _ in XCTFail("asked twice"); return false })))
        // Another key presented under the same host:port: refused, loudly, without asking.
        let s2 = try start(type: SecurityType.ra2_256, user: "pi", password: "pw")
        XCTAssertThrowsError(try Snapshot.capture(HostSpec(host: "127.0.0.1", port: s2.port),
                                                  options: try options("RA2_256", port: s.port, user: "pi", password: "pw",
                                                                       trust: kh.evaluator(ask: { _ in true })))) {
            XCTAssertTrue("\($0)".contains("HAS CHANGED"), "\($0)")
        }
    }

    /// A host reached once with a certificate an authority verified leaves an x509-ca record:
    /// an RA2 offer under its name later, with a fresh RSA key, is a change and refused, even
    /// where new keys are trusted without asking (the kiosk's --trust-new-certificate). Before,
    /// the CA-verified certificate left no pin, so the key counted as unknown: accepted, and
    /// the password sent to it.
    func testRA2KeyAfterACertificateVerifiedByTheCAIsAChange() throws {
        let pki = try SecurityInteropTests.makePKI(for: self)
        var xo = VNCServer.Options()
        xo.content = .blank
        xo.extraArguments = ["-SecurityTypes", "X509None", "-X509Cert", pki.serverCert, "-X509Key", pki.serverKey]
        let xvnc = try startServer(.xvnc, xo)
        let kh = KnownHosts(path: pki.dir.appendingPathComponent("known_hosts").path)
        let answers = HandshakeAnswers.standard(given: CredentialSources(username: nil, password: nil, prompt: false),
                                                recorder: CredentialRecorder(store: nil, save: false), knownHosts: kh, trustNew: true)
        var first = SnapshotOptions()
        first.settings.securityMethods = [.veNCrypt(VeNCryptSubtype.x509None)]
        first.settings.encodings = [Encoding.raw]
        first.settings.serverName = "127.0.0.1"
        first.settings.serverPort = xvnc.port
        first.settings.x509CAFile = pki.caCert
        first.answers = answers
        first.quietSeconds = 0.3
        _ = try Snapshot.capture(HostSpec(host: "127.0.0.1", port: xvnc.port), options: first)
        // an RSA-AES server answering for the same host:port
        let ra2 = try start(type: SecurityType.ra2_256, user: "pi", password: "pw")
        var o = try options("RA2_256", port: xvnc.port, user: "pi", password: "pw", trust: nil)
        o.answers = answers
        XCTAssertThrowsError(try Snapshot.capture(HostSpec(host: "127.0.0.1", port: ra2.port), options: o), "the password went to a new key") {
            XCTAssertTrue("\($0)".contains("HAS CHANGED"), "\($0)")
            XCTAssertTrue("\($0)".contains("certificate authority"), "\($0)")
        }
        XCTAssertFalse(ra2.process.logTail().contains("Authentication"), "no login reached the RSA-AES server")
    }
}
