import COpenSSL
import XCTest
@testable import RFB

/// VeNCrypt TLSNone against an OpenSSL server of the test's own (memory BIOs): the engine ends
/// the session with close_notify, and the server's close_notify ends the stream.
final class TLSCloseTests: XCTestCase {
    /// The server side: anonymous ECDH, TLS 1.2, as Xvnc and wayvnc offer for TLSNone.
    final class Server {
        let ctx: OpaquePointer
        let ssl: OpaquePointer
        let rbio: OpaquePointer
        let wbio: OpaquePointer

        init() throws {
            guard let c = SSL_CTX_new(TLS_server_method()) else { throw XCTSkip("no OpenSSL server context") }
            ctx = c
            XCTAssertEqual(SSL_CTX_set_cipher_list(ctx, "aNULL:!eNULL:@SECLEVEL=0"), 1)
            _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
            guard let s = SSL_new(ctx), let r = BIO_new(BIO_s_mem()), let w = BIO_new(BIO_s_mem()) else {
                throw XCTSkip("no OpenSSL session")
            }
            ssl = s; rbio = r; wbio = w
            SSL_set_bio(ssl, rbio, wbio)
            SSL_set_accept_state(ssl)
        }
        deinit { SSL_free(ssl); SSL_CTX_free(ctx) }

        /// Raw bytes from the client in; returns decrypted application bytes (and steps the handshake).
        func ingest(_ raw: [UInt8]) -> [UInt8] {
            raw.withUnsafeBytes { _ = BIO_write(rbio, $0.baseAddress, Int32($0.count)) }
            _ = SSL_do_handshake(ssl)
            var out: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = SSL_read(ssl, &buf, Int32(buf.count))
                if n <= 0 { break }
                out += buf.prefix(Int(n))
            }
            return out
        }
        var sawCloseNotify: Bool { SSL_get_shutdown(ssl) & SSL_RECEIVED_SHUTDOWN != 0 }
        func send(_ plain: [UInt8]) { _ = SSL_write(ssl, plain, Int32(plain.count)) }
        func close() { _ = SSL_shutdown(ssl) }
        func takeRaw() -> [UInt8] {
            let n = Int(BIO_ctrl_pending(wbio))
            var out = [UInt8](repeating: 0, count: n)
            if n > 0 { _ = BIO_read(wbio, &out, Int32(n)) }
            return out
        }
    }

    /// Drives TLSNone up to the normal phase; returns the engine and the server.
    func connected() throws -> (ClientEngine, Server) {
        var s = ClientSettings()
        s.securityMethods = try SecurityMethod.parseList("TLSNone")
        let e = ClientEngine(settings: s)
        let server = try Server()
        // version, VeNCrypt (19) 0.2, one subtype TLSNone (257), accepted
        try e.feed(S.version("003.008") + [1, 19] + [0, 2] + [0] + [1] + be32(257) + [1])
        var toServer = e.takeOutput()
        // everything before the ClientHello is plain RFB: version 12, type 1, VeNCrypt 0.2, subtype 4
        toServer.removeFirst(12 + 1 + 2 + 4)
        var sentResult = false, sentInit = false
        for _ in 0..<10 where e.phase != .normal {
            let plain = server.ingest(toServer)
            // inside TLS: SecurityResult once the handshake is done, ServerInit after ClientInit
            if SSL_is_init_finished(server.ssl) == 1 && !sentResult { server.send(be32(0)); sentResult = true }
            if !plain.isEmpty && !sentInit { server.send(S.serverInit(w: 4, h: 4)); sentInit = true }
            try e.feed(server.takeRaw())
            toServer = e.takeOutput()
        }
        XCTAssertEqual(e.phase, .normal, "TLSNone handshake completed")
        _ = server.ingest(toServer)
        return (e, server)
    }

    func testOurCloseNotifyReachesTheServer() throws {
        let (e, server) = try connected()
        XCTAssertFalse(server.sawCloseNotify)
        e.closeSecureChannel()
        _ = server.ingest(e.takeOutput())
        XCTAssertTrue(server.sawCloseNotify, "the server saw close_notify")
        e.closeSecureChannel()
        XCTAssertTrue(e.takeOutput().isEmpty, "sent once")
    }

    func testServersCloseNotifyEndsTheStream() throws {
        let (e, server) = try connected()
        XCTAssertFalse(e.streamEnded)
        server.close()
        try e.feed(server.takeRaw())
        XCTAssertTrue(e.streamEnded)
        // bytes after the close are neither parsed nor kept: a megabyte changes nothing
        let junk = [UInt8](repeating: 0x17, count: 1 << 20)
        try e.feed(junk)
        XCTAssertEqual(e.phase, .normal)
        XCTAssertFalse(e.isMidMessage, "nothing buffered")
    }
}
