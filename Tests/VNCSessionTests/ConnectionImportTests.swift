import Foundation
@testable import VNCSession
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// TigerVNC and Remmina files, written here as those programs write them.
final class ConnectionImportTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "farcast-import-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// What vncviewer's "Save as" writes (TigerVNC 1.13), CRLF line ends as on Windows.
    static let tiger = """
        TigerVNC Configuration file Version 1.0\r
        \r
        ServerName=build.example::5902\r
        X509CA=\r
        X509CRL=\r
        SecurityTypes=X509Plain,TLSPlain,MSLogonII,UltraVNC,VncAuth\r
        ReconnectOnError=1\r
        Shared=1\r
        AutoSelect=0\r
        FullColor=1\r
        LowColorLevel=2\r
        PreferredEncoding=Tight\r
        CustomCompressLevel=0\r
        CompressLevel=2\r
        NoJPEG=0\r
        QualityLevel=6\r
        FullScreen=1\r
        RemoteResize=1\r
        ViewOnly=0\r
        AcceptClipboard=1\r
        SendClipboard=0\r
        MenuKey=F8\r

        """

    func testTigerVNCFile() throws {
        let path = dir + "/Build box.tigervnc"
        try ConnectionImportTests.tiger.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try ConnectionImport.load(path: path)
        XCTAssertEqual(r.connection.name, "Build box")
        XCTAssertEqual(r.connection.address, "build.example::5902")
        XCTAssertEqual(r.connection.security, "X509Plain,TLSPlain,VncAuth")
        XCTAssertEqual(r.connection.quality, 6)
        XCTAssertTrue(r.connection.fullscreen)
        XCTAssertFalse(r.connection.viewOnly)
        XCTAssertEqual(r.connection.clipboard, .receive)
        XCTAssertEqual(r.connection.address, "build.example::5902", "the command line starts with it (ViewCommandLineTests)")
        XCTAssertTrue(r.notCarried.contains("SecurityTypes MSLogonII,UltraVNC (not supported)"), "\(r.notCarried)")
        XCTAssertTrue(r.notCarried.contains("RemoteResize=1"), "\(r.notCarried)")
        XCTAssertTrue(r.notCarried.contains("MenuKey=F8"))
        XCTAssertFalse(r.notCarried.contains { $0.hasPrefix("X509CA") }, "empty values are not news")

        let lossless = try ConnectionImport.tigerVNC(ConnectionImport.tigerVNCHeader + "\nServerName=h:1\nNoJPEG=1\n", name: "x")
        XCTAssertTrue(lossless.connection.lossless)
        let auto = try ConnectionImport.tigerVNC(ConnectionImport.tigerVNCHeader + "\nServerName=h:1\nAutoSelect=1\nQualityLevel=2\n", name: "x")
        XCTAssertNil(auto.connection.quality, "AutoSelect: vncviewer's own choice, ours is the default")
    }

    func testTigerVNCMistakes() {
        XCTAssertThrowsError(try ConnectionImport.tigerVNC("ServerName=h", name: "x"))
        XCTAssertThrowsError(try ConnectionImport.tigerVNC(ConnectionImport.tigerVNCHeader + "\nViewOnly=1", name: "x")) {
            XCTAssertTrue("\($0)".contains("names no server"))
        }
        XCTAssertThrowsError(try ConnectionImport.load(path: dir + "/missing.tigervnc"))
    }

    /// A VNC profile as Remmina 1.4 saves it.
    func testRemminaProfile() throws {
        let text = """
            [remmina]
            password=Zm9vYmFyCg==
            gateway_username=
            name=Kitchen Pi
            group=Home
            protocol=VNC
            server=kitchen.local:5901
            username=pi
            colordepth=16
            quality=9
            viewonly=1
            disableclipboard=1
            ssh_tunnel_enabled=1
            ssh_tunnel_server=gw.example:22
            ssh_tunnel_username=ann
            showcursor=0
            """
        let path = dir + "/group_vnc_kitchen.remmina"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try ConnectionImport.load(path: path)
        XCTAssertEqual(r.connection.name, "Kitchen Pi")
        XCTAssertEqual(r.connection.address, "kitchen.local:5901")
        XCTAssertEqual(r.connection.username, "pi")
        XCTAssertTrue(r.connection.lossless)
        XCTAssertTrue(r.connection.viewOnly)
        XCTAssertEqual(r.connection.clipboard, .off)
        XCTAssertEqual(r.connection.via, "ann@gw.example:22")
        XCTAssertTrue(r.notCarried.contains { $0.hasPrefix("password") }, "\(r.notCarried)")
        XCTAssertTrue(r.notCarried.contains { $0.hasPrefix("colordepth=16") })
        XCTAssertTrue(r.notCarried.contains("group=Home"))
        XCTAssertFalse(r.notCarried.joined().contains("Zm9vYmFy"), "the secret itself is never repeated")

        XCTAssertThrowsError(try ConnectionImport.remmina("[remmina]\nprotocol=RDP\nserver=h", name: "x")) {
            XCTAssertTrue("\($0)".contains("not a VNC one (protocol=RDP)"))
        }
    }

    /// Values the launcher's form would refuse are refused on import too, and said: a gateway
    /// ssh would read as an option, a name with a bracket or control characters. Before, the
    /// gateway was dropped without a word and the name kept as it was.
    func testImportedValuesAreCheckedAsTheFormChecksThem() throws {
        let tiger = ConnectionImport.tigerVNCHeader + "\nServerName=h:1\nvia=-oProxyCommand=touch /tmp/x\nSecurityTypes=VncAuth\n"
        let t = try ConnectionImport.tigerVNC(tiger, name: "Desk\u{1b}[2J")
        XCTAssertNil(t.connection.via)
        XCTAssertEqual(t.connection.name, "h:1")
        XCTAssertTrue(t.refused.contains { $0.hasPrefix("via=-oProxyCommand=touch /tmp/x: via takes") }, "\(t.refused)")
        XCTAssertTrue(t.refused.contains { $0.contains("the file's name 'Desk[2J'") }, "\(t.refused)")
        XCTAssertFalse(t.refused.joined().contains("\u{1b}"))

        let remmina = "[remmina]\nprotocol=VNC\nserver=[::1]:5901\nname=Evil] [x\nusername=bo\u{1b}b\nssh_tunnel_enabled=1\nssh_tunnel_server=-oProxyCommand=x\n"
        let r = try ConnectionImport.remmina(remmina, name: "")
        XCTAssertEqual(r.connection.name, "Imported connection", "an IPv6 address has brackets, which a name cannot")
        XCTAssertNil(r.connection.username)
        XCTAssertNil(r.connection.via)
        XCTAssertTrue(r.refused.contains { $0.hasPrefix("name 'Evil] [x': a name cannot contain [ or ]") }, "\(r.refused)")
        XCTAssertTrue(r.refused.contains { $0.hasPrefix("username=bob: username cannot hold control characters") }, "\(r.refused)")
        XCTAssertTrue(r.refused.contains { $0.hasPrefix("ssh_tunnel_server=-oProxyCommand=x") }, "\(r.refused)")
        // what was kept is saved and read back as the form's own
        var file = SavedConnectionsFile()
        file.connections = [t.connection, r.connection]
        XCTAssertEqual(try SavedConnectionsFile.parse(file.serialized()).connections, file.connections)

        // an escaped newline in the address: the import fails, and says so on one line
        XCTAssertThrowsError(try ConnectionImport.tigerVNC(ConnectionImport.tigerVNCHeader + "\nServerName=h:1\\nevil=1\n", name: "x")) {
            XCTAssertTrue("\($0)".contains("ServerName: address cannot hold control characters"), "\($0)")
            XCTAssertFalse("\($0)".contains("\n"))
        }
    }

    /// Keys the import does not take are listed without control characters, and a key that
    /// looks like a secret is listed without its value. Before, both went out as they were.
    func testUnhandledKeysAreShownCleanAndSecretsNever() throws {
        let text = ConnectionImport.tigerVNCHeader + "\nServerName=h:1\nPassword=a1b2c3d4e5f60718\nProxyPassphrase=hunter2\n"
            + "Menu\u{1b}]0;pwned\u{07}Key=F8\u{9b}31m\nDotWhenNoCursor=1\u{200f}x\n"
        let r = try ConnectionImport.tigerVNC(text, name: "x")
        let all = r.notCarried.joined(separator: "\n")
        XCTAssertFalse(all.contains("a1b2c3d4"), all)
        XCTAssertFalse(all.contains("hunter2"), all)
        XCTAssertTrue(r.notCarried.contains("Password (its value is not shown)"), all)
        XCTAssertTrue(r.notCarried.contains("ProxyPassphrase (its value is not shown)"), all)
        XCTAssertTrue(r.notCarried.contains("Menu]0;pwnedKey=F831m"), all)
        XCTAssertTrue(r.notCarried.contains("DotWhenNoCursor=1x"), all)
        XCTAssertFalse(all.unicodeScalars.contains { $0.value < 0x20 && $0.value != 0x0a || (0x7f...0x9f).contains($0.value) || $0.value == 0x200f }, all)
    }

    /// At most a bounded size is read, from a regular file only: a FIFO (or a device) is
    /// refused at once. Before, it was opened and read to its end, however long that took.
    func testReadIsBoundedAndOnlyFromRegularFiles() throws {
        let fifo = dir + "/endless.tigervnc"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked("")
        Thread {
            do { _ = try ConnectionImport.load(path: fifo); outcome.set("loaded") } catch { outcome.set("\(error)") }
            done.signal()
        }.start()
        let answered = done.wait(timeout: .now() + 3) == .success
        if !answered {
            // let a reader that waits for a writer go: a writer that comes and goes (no bytes, no SIGPIPE)
            let w = open(fifo, O_WRONLY | O_NONBLOCK)
            if w >= 0 { close(w) }
            _ = done.wait(timeout: .now() + 10)
        }
        XCTAssertTrue(answered, "the import still waited on the FIFO after 3 s")
        XCTAssertTrue(outcome.get().contains("not a regular file"), outcome.get())

        // a 256 MiB file (sparse: no disk used): refused after reading 256 KiB of it, where it
        // was read whole into memory before (the peak resident size grew by its size)
        let big = dir + "/big.tigervnc"
        try Data((ConnectionImport.tigerVNCHeader + "\nServerName=h:1\n").utf8).write(to: URL(fileURLWithPath: big))
        XCTAssertEqual(truncate(big, 256 << 20), 0)
        var before = rusage(), after = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &before)
        XCTAssertThrowsError(try ConnectionImport.load(path: big)) { XCTAssertTrue("\($0)".contains("larger than 256 KiB"), "\($0)") }
        getrusage(Int32(RUSAGE_SELF.rawValue), &after)
        XCTAssertLessThan(after.ru_maxrss - before.ru_maxrss, 64 << 10, "KiB more at the peak: the file was read whole")
    }
}

/// A value shared with a thread of the test.
final class Locked<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ v: T) { value = v }
    func set(_ v: T) { lock.withLock { value = v } }
    func get() -> T { lock.withLock { value } }
}
