import Foundation
import XCTest
import RFB
@testable import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// Saved credentials: the 0600 file and the Secret Service (a real gnome-keyring-daemon on a
/// private D-Bus session bus, so the user's own keyring is never touched).
final class CredentialStoreTests: XCTestCase {
    func tempDir() -> String {
        let d = NSTemporaryDirectory() + "farcast-store-\(getpid())-\(UUID().uuidString.prefix(6))"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: d) }
        return d
    }

    func mode(_ path: String) -> mode_t {
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        return st.st_mode & 0o777
    }

    func testFileRoundTripPermissionsAndReplace() throws {
        let dir = tempDir() + "/cfg/farcast"
        let path = dir + "/credentials"
        let s = FileCredentialStore(path: path)
        XCTAssertNil(s.lookup(server: "h:5901", username: "bob")?.passwordBytes)
        try s.save(server: "h:5901", credentials: Credentials(username: "bob", password: Array("pa ss\nword".utf8)))
        try s.save(server: "h:5901", credentials: Credentials(username: "", password: Array("vncpw".utf8)))
        try s.save(server: "h:5902", credentials: Credentials(username: "bob", password: [0xff, 0x00, 0x41]))
        XCTAssertEqual(mode(path), 0o600)
        XCTAssertEqual(mode(dir), 0o700)
        XCTAssertEqual(s.lookup(server: "h:5901", username: "bob")?.passwordBytes, Array("pa ss\nword".utf8))
        XCTAssertEqual(s.lookup(server: "h:5901", username: "")?.passwordBytes, Array("vncpw".utf8))
        XCTAssertEqual(s.lookup(server: "h:5902", username: "bob")?.passwordBytes, [0xff, 0x00, 0x41])
        XCTAssertNil(s.lookup(server: "h:5901", username: "alice")?.passwordBytes)
        XCTAssertNil(s.lookup(server: "h:5903", username: nil)?.passwordBytes)
        // user name not known: the entry saved for that server
        XCTAssertEqual(s.lookup(server: "h:5902", username: nil)?.username, "bob")
        // a second save replaces
        try s.save(server: "h:5901", credentials: Credentials(username: "bob", password: Array("new".utf8)))
        XCTAssertEqual(s.lookup(server: "h:5901", username: "bob")?.passwordBytes, Array("new".utf8))
        XCTAssertEqual(mode(path), 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix("h:5901 ") }.count, 2)
        XCTAssertTrue(text.contains("Plain text protected only by this file's permissions"))
        XCTAssertFalse(text.contains("pa ss"))
        // no temporary file left behind
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["credentials"])
    }

    func testFileCreatedPrivateUnderPermissiveUmask() throws {
        let old = umask(0)
        defer { umask(old) }
        let path = tempDir() + "/x/credentials"
        try FileCredentialStore(path: path).save(server: "h:1", credentials: Credentials(password: Array("p".utf8)))
        XCTAssertEqual(mode(path), 0o600)
    }

    func testRecorderSavesOnlyWhenAskedAndAfterCommit() throws {
        let path = tempDir() + "/credentials"
        let store = FileCredentialStore(path: path)
        let req = CredentialRequest(method: "Plain", needsUsername: true, server: "h:5900")
        // not asked: nothing saved
        let r0 = CredentialRecorder(store: store, save: false)
        let given = CredentialSources(username: "bob", password: SharedSecret(Secret(copying: Array("pw".utf8))), prompt: false)
        XCTAssertEqual(r0.answer(given: given)(req).used()?.password, Array("pw".utf8))
        XCTAssertNil(r0.commit())
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        // asked: saved at commit, not before
        let r1 = CredentialRecorder(store: store, save: true)
        _ = r1.answer(given: given)(req).used()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        let line = r1.commit()
        XCTAssertEqual(line, "saved the password for bob@h:5900 in \(path)")
        XCTAssertFalse(line?.contains("pw") ?? true)
        // next time with nothing given: from the store, before any prompt (saved from a clear login)
        let r2 = CredentialRecorder(store: store, save: false)
        let c = r2.answer(given: CredentialSources(username: nil, password: nil, prompt: false))(req).used()
        XCTAssertEqual(c?.username, "bob")
        XCTAssertEqual(c?.password, Array("pw".utf8))
        // typed at the prompt: noted and saved
        let r3 = CredentialRecorder(store: store, save: true)
        let vnc = CredentialRequest(method: "VncAuth", needsUsername: false, server: "h:5901")
        XCTAssertEqual(r3.answer(given: CredentialSources(username: nil, password: nil, prompt: false))(vnc).asked(), .some(nil))
        r3.noteTyped(vnc, Credentials(password: Array("typed".utf8)))
        XCTAssertNotNil(r3.commit())
        // typed for VncAuth (not encrypted): saved apart, for unencrypted methods of that host
        XCTAssertEqual(store.lookup(server: CredentialRecorder.clearKey("h:5901"), username: "")?.passwordBytes, Array("typed".utf8))
        XCTAssertNil(store.lookup(server: "h:5901", username: "")?.passwordBytes)
    }

    /// Saved from an encrypted login, credentials are never offered to a method that would send
    /// them in clear, and go on their own only to a server whose identity was checked: over
    /// anonymous TLS (or ARD, or a key seen for the first time) the user is asked, with them
    /// filled in. Saved from an unencrypted one, they go to either.
    func testSavedCredentialsStayWithTheirProtection() throws {
        let store = FileCredentialStore(path: tempDir() + "/credentials")
        let none = CredentialSources(username: nil, password: nil, prompt: false)
        let tls = CredentialRequest(method: "TLSVnc", needsUsername: false, server: "h:5900", channel: .anonymous)
        let x509 = CredentialRequest(method: "X509Vnc", needsUsername: false, server: "h:5900", channel: .authenticated)
        let clear = CredentialRequest(method: "VncAuth", needsUsername: false, server: "h:5900", channel: .clear)
        let saver = CredentialRecorder(store: store, save: true)
        saver.noteTyped(tls, Credentials(password: Array("secret".utf8)))
        XCTAssertNotNil(saver.commit())
        let r = CredentialRecorder(store: store, save: false)
        XCTAssertEqual(r.answer(given: none)(x509).used()?.password, Array("secret".utf8), "sent to a server whose identity is checked")
        XCTAssertEqual(r.answer(given: none)(tls).asked(), .some(Array("secret".utf8)), "over anonymous TLS: asked, filled in")
        XCTAssertEqual(r.answer(given: none)(clear).asked(), .some(nil), "a password saved over TLS is not sent over VncAuth")
        // saved over VncAuth: used by VncAuth, and by an encrypted method too
        let other = CredentialRequest(method: "VncAuth", needsUsername: false, server: "k:5900", channel: .clear)
        let saver2 = CredentialRecorder(store: store, save: true)
        saver2.noteTyped(other, Credentials(password: Array("old".utf8)))
        XCTAssertEqual(saver2.commit(), "saved the password for k:5900 in \(store.path)")
        XCTAssertEqual(r.answer(given: none)(other).used()?.password, Array("old".utf8))
        var otherTLS = other; otherTLS.channel = .anonymous; otherTLS.method = "TLSVnc"
        XCTAssertEqual(r.answer(given: none)(otherTLS).used()?.password, Array("old".utf8))
    }

    /// Without --save-password nothing typed is kept: the recorder holds no copy to save.
    func testTypedCredentialsAreNotKeptWithoutSaving() throws {
        let store = FileCredentialStore(path: tempDir() + "/credentials")
        let r = CredentialRecorder(store: store, save: false)
        let req = CredentialRequest(method: "VncAuth", needsUsername: false, server: "h:5900")
        r.noteTyped(req, Credentials(password: Array("typed".utf8)))
        XCTAssertNil(r.commit())
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.path))
    }

    // MARK: Secret Service

    /// The tools are looked for where the command line would look: PATH.
    var searchPath: String { ProcessInfo.processInfo.environment["PATH"] ?? ChildProcess.defaultSearchPath }

    /// A private session bus with gnome-keyring-daemon's secrets component, unlocked, its data
    /// under a temporary HOME. Sets DBUS_SESSION_BUS_ADDRESS for this process until teardown.
    func privateKeyring() throws -> [String: String] {
        for t in ["dbus-daemon", "gnome-keyring-daemon", "secret-tool", "dbus-send"] where ChildProcess.find(t, searchPath: searchPath) == nil {
            throw XCTSkip("\(t) is missing (scripts/install-deps.sh installs dbus, gnome-keyring, libsecret-tools)")
        }
        let home = tempDir()
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home
        env["XDG_DATA_HOME"] = home + "/data"
        env["XDG_CONFIG_HOME"] = home + "/config"
        env["XDG_RUNTIME_DIR"] = home + "/run"
        try FileManager.default.createDirectory(atPath: home + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let bus = Process()
        bus.executableURL = URL(fileURLWithPath: ChildProcess.find("dbus-daemon", searchPath: searchPath) ?? "")
        bus.arguments = ["--session", "--nofork", "--print-address=1", "--address=unix:path=\(home)/run/bus"]
        bus.environment = env
        let out = Pipe()
        bus.standardOutput = out
        bus.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try bus.run()
        addTeardownBlock { bus.terminate(); bus.waitUntilExit() }
        // the first line is the address
        var addr = [UInt8]()
        while let b = try out.fileHandleForReading.read(upToCount: 1), let c = b.first, c != 10 { addr.append(c) }
        let address = String(decoding: addr, as: UTF8.self)
        XCTAssertTrue(address.hasPrefix("unix:"), address)
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        let gk = Process()
        gk.executableURL = URL(fileURLWithPath: ChildProcess.find("gnome-keyring-daemon", searchPath: searchPath) ?? "")
        gk.arguments = ["--foreground", "--unlock", "--components=secrets", "--control-directory=\(home)/run/keyring"]
        gk.environment = env
        let inp = Pipe()
        gk.standardInput = inp
        gk.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        gk.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try gk.run()
        addTeardownBlock { gk.terminate(); gk.waitUntilExit() }
        try inp.fileHandleForWriting.write(contentsOf: Data("keyring-test".utf8))
        try inp.fileHandleForWriting.close()
        let old = getenv("DBUS_SESSION_BUS_ADDRESS").map { String(cString: $0) }
        setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
        addTeardownBlock { if let old { setenv("DBUS_SESSION_BUS_ADDRESS", old, 1) } else { unsetenv("DBUS_SESSION_BUS_ADDRESS") } }
        // wait until our daemon owns the name (not an activated one)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let r = SecretServiceCredentialStore.run("dbus-send", searchPath: searchPath, ["--session", "--print-reply", "--dest=org.freedesktop.DBus",
                                                                      "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames"]),
               String(decoding: r.out, as: UTF8.self).contains("\"org.freedesktop.secrets\"") { return env }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw XCTSkip("gnome-keyring-daemon did not take org.freedesktop.secrets on the private bus")
    }

    func testSecretServiceRoundTrip() throws {
        let env = try privateKeyring()
        let bus = env["DBUS_SESSION_BUS_ADDRESS"]
        XCTAssertTrue(SecretServiceCredentialStore.available(sessionBus: bus, searchPath: searchPath))
        XCTAssertTrue(CredentialStores.preferred(filePath: "/nonexistent/credentials", sessionBus: bus, searchPath: searchPath) is SecretServiceCredentialStore)
        let s = SecretServiceCredentialStore(searchPath: searchPath)
        XCTAssertNil(s.lookup(server: "h:5901", username: "bob")?.passwordBytes)
        try s.save(server: "h:5901", credentials: Credentials(username: "bob", password: Array("s3 cr€t".utf8)))
        try s.save(server: "h:5901", credentials: Credentials(username: "", password: Array("vncpw".utf8)))
        XCTAssertEqual(s.lookup(server: "h:5901", username: "bob")?.passwordBytes, Array("s3 cr€t".utf8))
        XCTAssertEqual(s.lookup(server: "h:5901", username: "")?.passwordBytes, Array("vncpw".utf8))
        XCTAssertNil(s.lookup(server: "h:5901", username: "alice")?.passwordBytes)
        XCTAssertNil(s.lookup(server: "h:5902", username: nil)?.passwordBytes)
        try s.save(server: "h:5901", credentials: Credentials(username: "bob", password: Array("new".utf8)))
        XCTAssertEqual(s.lookup(server: "h:5901", username: "bob")?.passwordBytes, Array("new".utf8))
    }

    func testNoSessionBusMeansFile() {
        let old = getenv("DBUS_SESSION_BUS_ADDRESS").map { String(cString: $0) }
        unsetenv("DBUS_SESSION_BUS_ADDRESS")
        defer { if let old { setenv("DBUS_SESSION_BUS_ADDRESS", old, 1) } }
        XCTAssertFalse(SecretServiceCredentialStore.available(sessionBus: nil, searchPath: searchPath))
        XCTAssertFalse(SecretServiceCredentialStore.available(sessionBus: "", searchPath: searchPath))
        XCTAssertTrue(CredentialStores.preferred(filePath: "/tmp/x", sessionBus: nil, searchPath: searchPath) is FileCredentialStore)
    }
}
