import Foundation
@testable import VNCSession
import XCTest

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
        XCTAssertEqual(r.connection.clipboard, "receive")
        XCTAssertEqual(r.connection.arguments.first, "build.example::5902")
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
        XCTAssertEqual(r.connection.clipboard, "off")
        XCTAssertEqual(r.connection.via, "ann@gw.example:22")
        XCTAssertTrue(r.notCarried.contains { $0.hasPrefix("password") }, "\(r.notCarried)")
        XCTAssertTrue(r.notCarried.contains { $0.hasPrefix("colordepth=16") })
        XCTAssertTrue(r.notCarried.contains("group=Home"))
        XCTAssertFalse(r.notCarried.joined().contains("Zm9vYmFy"), "the secret itself is never repeated")

        XCTAssertThrowsError(try ConnectionImport.remmina("[remmina]\nprotocol=RDP\nserver=h", name: "x")) {
            XCTAssertTrue("\($0)".contains("not a VNC one (protocol=RDP)"))
        }
    }
}
