/// What a security handler needs from the engine. Implemented by `ClientEngine`.
protocol SecurityContext: AnyObject {
    var settings: ClientSettings { get }
    /// Plaintext to the server (through the channel once one runs).
    func send(_ bytes: [UInt8])
    /// From now on every byte in both directions goes through `channel`. Bytes already queued
    /// for sending go out unencrypted first; bytes received after the current unit are raw.
    func startChannel(_ channel: SecureChannel)
    /// Ends the channel after what is queued now (RSA-AES "ne" types encrypt only the handshake).
    func stopChannel()
    /// Credentials from the settings or the user's answer, lent to `body` (which sends what it
    /// makes of them with `sendSecret`). Without them the engine asks (an event) and throws
    /// `AwaitingAnswer`: the unit is parsed again after the answer, so a handler calls this
    /// before any side effect of the unit, or in a state of its own.
    func withCredentials<R>(method: String, needsUsername: Bool, _ body: (borrowing Credentials) throws -> R) throws -> R
    /// Returns for an accepted identity, throws the refusal, or asks like `withCredentials`.
    func trust(_ id: ServerIdentity) throws
    /// The server's certificate verified through an authority for the name asked.
    func verifiedByAuthority(fingerprint: [UInt8])
    /// Plaintext to the server that holds a secret: `bytes` is zeroed once queued, and the
    /// queue is zeroed once it went through the channel.
    func sendSecret(_ bytes: inout [UInt8])
    /// For `--verbose`: what was negotiated.
    func describeSecurity(_ s: String)
    /// The method now in use (a VeNCrypt subtype), for downgrade memory and saved credentials.
    func chose(_ method: SecurityMethod)
    /// The refusal when only methods weaker than this host's before are offered.
    func downgrade(offered: String) -> ProtocolError
}

enum SecurityProgress { case progressed, waiting, finished }

/// A security type's own handshake, between the type choice and SecurityResult.
protocol SecurityHandler: AnyObject {
    /// Parses one unit; throws NeedMoreData (through the reader) when short.
    func step(_ r: inout ByteReader, _ ctx: SecurityContext) throws -> SecurityProgress
}

/// VeNCrypt (type 19): version 0.2, a subtype list, then TLS (anonymous or with a certificate)
/// and inside it None, VNC authentication or Plain (user name and password).
final class VeNCryptHandler: SecurityHandler {
    /// A server offers a handful of subtypes; the count is a byte, so 255 at most anyway.
    static let maxSubtypes = 255

    private enum State { case version, status, subtypes, tlsAck, tlsHandshake, inner, vncChallenge }
    private var state = State.version
    private var subtype: UInt32 = 0
    private var tls: TLSChannel?

    func step(_ r: inout ByteReader, _ ctx: SecurityContext) throws -> SecurityProgress {
        switch state {
        case .version:
            try r.require(2)
            let major = try r.u8(), minor = try r.u8()
            guard major == 0 && minor >= 2 else {
                throw ProtocolError("server speaks VeNCrypt \(major).\(minor); this viewer speaks 0.2")
            }
            ctx.send([0, 2])
            state = .status
        case .status:
            guard try r.u8() == 0 else { throw ProtocolError("server refused VeNCrypt version 0.2") }
            state = .subtypes
        case .subtypes:
            try r.require(1)
            let n = Int(r.base[r.pos])
            guard n > 0 else { throw ProtocolError("server offers VeNCrypt but no VeNCrypt subtypes") }
            guard n <= VeNCryptHandler.maxSubtypes else { throw ProtocolError("VeNCrypt subtype count \(n) is over the limit") }
            try r.require(1 + 4 * n)
            r.pos += 1
            var offered: [UInt32] = []
            for _ in 0..<n { offered.append(try r.u32()) }
            func subtypes(_ ms: [SecurityMethod]) -> [UInt32] { ms.compactMap { if case .veNCrypt(let s) = $0 { return s } else { return nil } } }
            let ours = subtypes(ctx.settings.allowedMethods)
            guard let chosen = ours.first(where: { offered.contains($0) }) else {
                if subtypes(ctx.settings.securityMethods).contains(where: { offered.contains($0) }) {
                    throw ctx.downgrade(offered: offered.map(VeNCryptSubtype.name).joined(separator: ", "))
                }
                throw ProtocolError("no common VeNCrypt subtype: server offers \(offered.map(VeNCryptSubtype.name).joined(separator: ", ")); this viewer accepts \(ours.map(VeNCryptSubtype.name).joined(separator: ", "))")
            }
            subtype = chosen
            ctx.chose(.veNCrypt(chosen))
            ctx.send(secBE32(chosen))
            ctx.describeSecurity("VeNCrypt \(VeNCryptSubtype.name(chosen))")
            // the inner authentication may wait for an answer: a state of its own, so the
            // subtype choice above is not sent again when it is parsed anew
            state = VeNCryptSubtype.usesTLS(chosen) ? .tlsAck : .inner
        case .tlsAck:
            guard try r.u8() != 0 else { throw ProtocolError("server could not start TLS for VeNCrypt \(VeNCryptSubtype.name(subtype))") }
            // a certificate is checked against the name the user gave; without one, refuse
            // rather than accept any certificate a CA signed for anyone
            if VeNCryptSubtype.usesX509(subtype) && ctx.settings.serverName.isEmpty {
                throw ProtocolError("VeNCrypt \(VeNCryptSubtype.name(subtype)) needs the server's name to check its certificate, and none is known")
            }
            let t = try TLSChannel(anonymous: !VeNCryptSubtype.usesX509(subtype), host: ctx.settings.serverName,
                                   caFile: ctx.settings.x509CAFile)
            try t.start()
            tls = t
            ctx.startChannel(t)
            state = .tlsHandshake
        case .tlsHandshake:
            guard let t = tls, t.handshakeDone else { return .waiting }
            ctx.describeSecurity("VeNCrypt \(VeNCryptSubtype.name(subtype)), \(t.description)")
            if VeNCryptSubtype.usesX509(subtype) { try checkCertificate(t, ctx) }
            state = .inner
        case .inner:
            return try inner(ctx)
        case .vncChallenge:
            try r.require(16)
            let challenge = Array(UnsafeBufferPointer(start: try r.bytes(16), count: 16))
            var response = try ctx.withCredentials(method: VeNCryptSubtype.name(subtype), needsUsername: false) { c in
                c.password.withBytes { VNCAuth.response(challenge: challenge, password: $0) }
            }
            ctx.sendSecret(&response)
            return .finished
        }
        return .progressed
    }

    /// What follows the (optional) TLS handshake.
    private func inner(_ ctx: SecurityContext) throws -> SecurityProgress {
        switch VeNCryptSubtype.inner(subtype) {
        case .none?:
            return .finished
        case .vnc?:
            state = .vncChallenge
            return .progressed
        case .plain?:
            var message = try ctx.withCredentials(method: VeNCryptSubtype.name(subtype), needsUsername: true) { c in
                let user = Array(c.username.utf8)
                var m = secBE32(UInt32(user.count)) + secBE32(UInt32(c.password.count)) + user
                c.password.withBytes { m.append(contentsOf: $0) }
                return m
            }
            ctx.sendSecret(&message)
            return .finished
        case nil:
            throw ProtocolError("internal: VeNCrypt subtype \(subtype) has no handler")
        }
    }

    private func checkCertificate(_ t: TLSChannel, _ ctx: SecurityContext) throws {
        guard let cert = t.peerCertificate() else { throw ProtocolError("server sent no TLS certificate for VeNCrypt \(VeNCryptSubtype.name(subtype))") }
        guard let err = cert.verifyError else {   // the chain and the host name verified
            ctx.verifiedByAuthority(fingerprint: cert.sha256)
            return
        }
        try ctx.trust(ServerIdentity(kind: .x509, server: ctx.settings.serverDescription, fingerprint: cert.sha256,
                                     displayFingerprint: cert.sha256.colonHex, verifyError: err, subject: cert.subject))
    }
}

func secBE32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
