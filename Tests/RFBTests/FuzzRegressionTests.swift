import XCTest
@_spi(Fuzzing) @testable import RFB

/// What the fuzz targets (Fuzz/, scripts/fuzz.sh) found, kept as tests: each input fed whole
/// and in pieces, as the targets feed them.
final class FuzzRegressionTests: XCTestCase {
    /// Feeds `bytes` in `chunk`-byte pieces, trusting any identity; the error message, if any.
    func run(_ e: ClientEngine, _ bytes: [UInt8], chunk: Int) -> String? {
        do {
            var off = 0
            while off < bytes.count {
                let n = min(chunk, bytes.count - off)
                try e.feed(Array(bytes[off..<(off + n)]))
                off += n
                while case .trustRequired? = e.lastQuestion { try e.answerTrust(.accept) }
            }
        } catch let err as ProtocolError {
            return err.message
        } catch {
            XCTFail("not a ProtocolError: \(error)")
        }
        return nil
    }

    // MARK: resizes

    /// stream: a DesktopSize, then a rect in an unknown encoding. Fed whole the parse failed
    /// with the resize still noted (40x20 never made); fed in pieces it was made when the
    /// first piece ended. The size the server set is made either way.
    func testAResizeBeforeAFailureIsMadeHoweverFed() {
        let bytes = S.hello(w: 32, h: 16) + S.update([S.rect(0, 0, 40, 20, Encoding.desktopSize),
                                                      S.rect(0, 0, 0x7f7f, 0x7f7f, 0x7f7f_7f7f)])
        for chunk in [bytes.count, 1, 7] {
            let e = ClientEngine(settings: ClientSettings())
            XCTAssertNotNil(run(e, bytes, chunk: chunk))
            XCTAssertEqual(e.framebuffer?.width, 40, "chunk \(chunk)"); XCTAssertEqual(e.framebuffer?.height, 20)
        }
    }

    /// mt-rre (campaign, after 7.1 million runs): a raw rect fills 16x16 of a 16x16 desktop,
    /// then one update resizes to 0x64 and a later one to 1x8. Fed whole, only 1x8 was made
    /// (from 16x16: the column of the rect kept); fed in pieces, 0x64 was made where a piece
    /// ended (nothing kept) and then 1x8 (black). A run of resizes now keeps only what every
    /// size in it covered, so the picture is the same however the bytes arrive. Also a run
    /// that comes back to the size it left (16x16 -> 4x4 -> 16x16).
    func testARunOfResizesKeepsTheSamePixelsHoweverFed() {
        let fill = [UInt8](repeating: 0xab, count: 16 * 16 * 4)
        for (sizes, kept) in [([(0, 64), (1, 8)], 0), ([(4, 4), (16, 16)], 4)] {
            var bytes = S.hello(w: 16, h: 16) + S.update([S.rect(0, 0, 16, 16, Encoding.raw) + fill])
            for (w, h) in sizes { bytes += S.update([S.rect(0, 0, w, h, Encoding.desktopSize)]) }
            var pictures: [[UInt32]] = []
            for chunk in [bytes.count, 1, 7, 29] {
                let e = ClientEngine(settings: ClientSettings())
                XCTAssertNil(run(e, bytes, chunk: chunk))
                guard let fb = e.framebuffer else { return XCTFail("no framebuffer") }
                XCTAssertEqual(fb.width, sizes[1].0, "chunk \(chunk)"); XCTAssertEqual(fb.height, sizes[1].1)
                pictures.append(fb.snapshotPixels())
            }
            XCTAssertEqual(Set(pictures).count, 1, "the same pixels however fed: \(sizes)")
            let lit = pictures[0].filter { $0 != 0 }.count
            XCTAssertEqual(lit, kept * kept, "only what every size covered is kept: \(sizes)")
        }
    }

    // MARK: RSA-AES "ne" types

    /// An RA2ne server, its key and ours fixed: the bytes up to and including the AES-EAX
    /// messages `sealed` (after its key hash), then `plain`.
    struct RA2neServer {
        static let clientKey = try! RSAKey(generateBits: 1024)
        static let serverKey = try! RSAKey(generateBits: 1024)
        static let secret = [UInt8](repeating: 7, count: 16)
        static func blob(_ k: RSAKey) -> [UInt8] { be32(1024) + (try! k.component("n", size: 128)) + (try! k.component("e", size: 128)) }

        static func bytes(sealed: [[UInt8]], plain: [UInt8]) throws -> [UInt8] {
            let serverRandom = [UInt8](repeating: 9, count: 16)
            let (toClient, toServer) = RSAAESKeys.sessionKeys(clientRandom: secret, serverRandom: serverRandom, bits: 128)
            let channel = try EAXChannel(receiveKey: toServer, sendKey: toClient)
            try channel.writePlain(RSAAESKeys.keyHash(blob(serverKey) + blob(clientKey), bits256: false))
            for m in sealed { try channel.writePlain(m) }
            let random = try clientKey.encrypt(serverRandom)
            return S.version("003.008") + [1, SecurityType.ra2ne] + blob(serverKey) + be16(random.count) + random
                + channel.takeRaw() + plain
        }

        static func engine() -> ClientEngine {
            var s = ClientSettings()
            s.securityMethods = [.type(SecurityType.ra2ne)]
            s.username = "user"; s.password = Array("pw".utf8)
            let e = ClientEngine(settings: s)
            e.fixedKeys = FixedKeys(rsa: clientKey, secret: secret)
            return e
        }
    }

    /// RA2ne ends the encryption after the message carrying the subtype; what follows is plain.
    /// The channel decrypted every whole message it held, so when plain bytes came in the same
    /// piece as that message (a server not waiting for our credentials) the connection failed
    /// on an AES-EAX tag mismatch fed whole and not fed in pieces, and a sealed message after
    /// it was decrypted fed whole and read as plain fed in pieces (sec-rsaaes-inner, 7-byte
    /// pieces). The channel now gives one message at a time until the handshake is done.
    func testRA2neReadsWhatFollowsTheSubtypeMessageAsPlainHoweverSplit() throws {
        let ok = try RA2neServer.bytes(sealed: [[RSAAESHandler.subtypeUserPass]], plain: be32(0) + S.serverInit(w: 4, h: 2))
        for chunk in [Int.max, 1, 7, 509] {
            let e = RA2neServer.engine()
            XCTAssertNil(run(e, ok, chunk: chunk), "\(chunk)-byte pieces")
            XCTAssertEqual(e.phase, .normal, "\(chunk)-byte pieces")
        }
        // a result sealed after the subtype message is read as the plain bytes it must be
        let sealedResult = try RA2neServer.bytes(sealed: [[RSAAESHandler.subtypeUserPass], be32(1) + be32(0)], plain: [])
        let whole = run(RA2neServer.engine(), sealedResult, chunk: Int.max)
        XCTAssertNotNil(whole)
        for chunk in [1, 7, 509] {
            XCTAssertEqual(run(RA2neServer.engine(), sealedResult, chunk: chunk), whole, "\(chunk)-byte pieces")
        }
    }
}
