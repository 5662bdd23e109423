/// The connection's start (TigerVNC's CConnection states before normal): protocol version,
/// security type (and the type's own handler), SecurityResult and ServerInit. It owns what the
/// security phase decides and remembers: the method chosen, how the server's identity was
/// checked, the questions asked and their answers. Security handlers talk to it as their
/// `SecurityContext`. Session thread, with the engine.
final class Handshake: SecurityContext {
    enum State {
        case version
        case securityType33            // 3.3: server decides, u32
        case securityList              // 3.7+: count + types
        case vncChallenge
        case handler(SecurityHandler, UInt8)   // a type's own handshake (VeNCrypt, RSA-AES, ARD)
        case securityResult(UInt8)     // chosen type
        case failureReason(prefix: String)
        case serverInit
        /// ServerInit parsed: the message reader takes over.
        case done
    }

    unowned let engine: ClientEngine
    private(set) var state = State.version
    /// Whether the login asked for a user name (for the message when it is refused).
    private var usernameAsked = false
    /// Whether a password (and user name) went to the server: a close or a malformed ServerInit
    /// after it is reported as a refused login.
    private var credentialsSent = false
    /// The security method in use once chosen (a VeNCrypt subtype once the server took it).
    private(set) var chosenMethod: SecurityMethod?
    /// What the security handshake negotiated, e.g. "VeNCrypt X509Plain, TLSv1.3 TLS_AES_256_GCM_SHA384".
    private(set) var securityDescription = ""
    /// Credentials given by `provideCredentials`, kept until the unit that asked for them sent
    /// them (it is parsed again with them), then dropped: the Secret zeroes itself.
    private var answeredCredentials: Credentials?
    /// How the server's identity was checked in this handshake (`channelProtection`).
    private(set) var peerIdentity: PeerIdentityCheck = .none
    /// Decisions given by `answerTrust`, by fingerprint.
    private var answeredTrust: [[UInt8]: TrustDecision] = [:]
    /// The question last asked (`.credentialsRequired` or `.trustRequired`).
    private var question: EngineEvent?
    /// The phase to go back to once the question is answered.
    private var phaseBeforeQuestion: ClientEngine.Phase = .authenticating

    init(engine: ClientEngine) { self.engine = engine }

    var settings: ClientSettings { engine.settings }

    /// One unit. Returns false when there is nothing more to do without new bytes.
    func step(_ r: inout ByteReader) throws -> Bool {
        let e = engine
        switch state {
        case .version:
            try r.require(12)
            let s = try r.string(12)
            try handleVersion(s)
        case .securityType33:
            let t = try r.u32()
            switch t {
            case 0: state = .failureReason(prefix: "server refused the connection")
            case UInt32(SecurityType.none):
                guard settings.allowedTypes.contains(SecurityType.none) else {
                    if settings.securityTypes.contains(SecurityType.none) { throw downgrade(offered: "None") }
                    throw ProtocolError("server wants security type None, which the accepted security types exclude")
                }
                chose(.type(SecurityType.none))
                e.events.append(.securityChosen(SecurityType.none)); startInit()
            case UInt32(SecurityType.vncAuth):
                guard settings.allowedTypes.contains(SecurityType.vncAuth) else {
                    if settings.securityTypes.contains(SecurityType.vncAuth) { throw downgrade(offered: "VncAuth") }
                    throw ProtocolError("server wants VNC authentication, which the accepted security types exclude")
                }
                chose(.type(SecurityType.vncAuth))
                e.events.append(.securityChosen(SecurityType.vncAuth)); state = .vncChallenge; e.phase = .authenticating
            default:
                throw ProtocolError("server (RFB 3.3) chose security type \(t), which this viewer does not support")
            }
        case .securityList:
            try r.require(1)
            let n = Int(r.base[r.pos])
            if n == 0 { r.pos += 1; state = .failureReason(prefix: "server refused the connection"); return true }
            try r.require(1 + n)
            r.pos += 1
            let offered = (0..<n).map { r.base[r.pos + $0] }
            r.pos += n
            // Our order decides (strongest first), and only what the user allowed.
            guard let chosen = settings.allowedTypes.first(where: { offered.contains($0) }) else {
                let names = offered.map { SecurityType.name($0) }.joined(separator: ", ")
                if settings.securityTypes.contains(where: { offered.contains($0) }) { throw downgrade(offered: names) }
                let ours = settings.securityMethods.map { $0.name }.joined(separator: ", ")
                throw ProtocolError("no common security type: server offers \(names); this viewer accepts \(ours)")
            }
            if chosen != SecurityType.veNCrypt { chose(.type(chosen)) }   // VeNCrypt's subtype says later
            e.writer.write(chosen)
            e.events.append(.securityChosen(chosen))
            securityDescription = SecurityType.name(chosen)
            switch chosen {
            case SecurityType.vncAuth: state = .vncChallenge; e.phase = .authenticating
            case SecurityType.none:
                // 3.7 sends no SecurityResult for None
                if e.server.minorVersion >= 8 { state = .securityResult(chosen) } else { startInit() }
            case SecurityType.veNCrypt:
                state = .handler(VeNCryptHandler(), chosen); e.phase = .authenticating
            case SecurityType.ra2, SecurityType.ra2ne, SecurityType.ra2_256, SecurityType.ra2ne_256:
                state = .handler(RSAAESHandler(type: chosen, fixed: e.fixedKeys), chosen); e.phase = .authenticating
            case SecurityType.appleRemoteDesktop:
                state = .handler(ARDHandler(fixed: e.fixedKeys), chosen); e.phase = .authenticating
            default:
                throw ProtocolError("internal: security type \(chosen) has no handler")
            }
        case .vncChallenge:
            try r.require(16)
            let challenge = Array(UnsafeBufferPointer(start: try r.bytes(16), count: 16))
            var response = try withCredentials(method: "VncAuth", needsUsername: false) { c in
                c.password.withBytes { VNCAuth.response(challenge: challenge, password: $0) }
            }
            sendSecret(&response)
            answeredCredentials = nil   // used: zeroed now, not kept until ServerInit
            state = .securityResult(SecurityType.vncAuth)
        case .handler(let h, let type):
            switch try h.step(&r, self) {
            case .progressed: break
            case .waiting: return false
            case .finished:
                answeredCredentials = nil   // sent (if asked for): zeroed now
                state = .securityResult(type)   // every type but None gets a SecurityResult, in 3.7 too
            }
        case .securityResult(let chosen):
            let res = try r.u32()
            if res == 0 { startInit(); return true }
            let what: String
            switch chosen {
            case SecurityType.vncAuth: what = "authentication failed (wrong password?)"
            case SecurityType.none: what = "security handshake failed"
            default:
                // name the method, and only what was asked: a password alone, or both
                let method = chosenMethod?.name ?? SecurityType.name(chosen)
                let wrong = usernameAsked ? "wrong user name or password?" : "wrong password?"
                what = "authentication failed with \(method) (\(wrong))"
            }
            if e.server.minorVersion >= 8 { state = .failureReason(prefix: what) }
            else { throw ProtocolError(res == 2 ? "authentication failed: too many attempts" : what) }
        case .failureReason(let prefix):
            let len = Int(try r.u32())
            guard len <= Limits.maxReasonLength else {
                throw ProtocolError("\(prefix); its reason is \(len) bytes long, over the \(Limits.maxReasonLength)-byte limit")
            }
            let reason = try r.string(len)
            throw ProtocolError(reason.isEmpty ? prefix : "\(prefix): \(sanitize(reason))")
        case .serverInit:
            try r.require(24)
            let w = Int(try r.u16()), h = Int(try r.u16())
            let pf = PixelFormat(wire: try r.bytes(16))
            let nameLen = Int(try r.u32())
            // Right after a password went out, nonsense here is a refusal cut short (wayvnc
            // before 0.7 sends a 1-byte SecurityResult 0 and stack bytes), not a bad desktop.
            do {
                guard nameLen <= Limits.maxDesktopNameLength else {
                    throw ProtocolError("ServerInit desktop name is \(nameLen) bytes long (limit \(Limits.maxDesktopNameLength))")
                }
                try e.checkSize(w, h, what: "ServerInit")
            } catch let err as ProtocolError {
                throw credentialsSent ? refusedLogin() : err
            }
            let name = try r.string(nameLen)
            // the login is over: no password is kept (its Secret zeroes itself as it goes)
            answeredCredentials = nil
            state = .done
            e.serverInit(width: w, height: h, format: pf, name: ServerText.printable(name))
        case .done:
            throw ProtocolError("internal: the handshake is over")
        }
        return true
    }

    private func handleVersion(_ s: String) throws {
        // "RFB xxx.yyy\n"
        let u = Array(s.utf8)
        guard u.count == 12, s.hasPrefix("RFB "), u[7] == UInt8(ascii: "."), u[11] == 10,
              let major = Int(String(decoding: u[4..<7], as: UTF8.self)),
              let minor = Int(String(decoding: u[8..<11], as: UTF8.self)) else {
            throw ProtocolError("not an RFB server: it greeted with \(sanitize(s).debugDescription)")
        }
        // As TigerVNC: below 3.3 is unusable; 3.3–3.6 speak 3.3; 3.7; 3.8 and anything
        // newer (3.889 from macOS, RealVNC's 4.x/5.x) speak 3.8.
        if major < 3 || (major == 3 && minor < 3) {
            throw ProtocolError("server speaks RFB \(major).\(minor), older than 3.3, which this viewer does not support")
        }
        let ours = major == 3 && minor < 7 ? 3 : major == 3 && minor == 7 ? 7 : 8
        engine.server.minorVersion = ours
        engine.writer.writeVersion(minor: ours)
        engine.phase = .security
        state = ours == 3 ? .securityType33 : .securityList
    }

    private func startInit() {
        engine.writer.writeClientInit(shared: settings.shared)
        engine.phase = .initialising
        state = .serverInit
    }

    // MARK: questions and answers

    /// The credentials the settings hold, else those answered, lent to `body`; otherwise asks
    /// (an event) and waits: the unit is parsed again once `provideCredentials` is called.
    func withCredentials<R>(method: String, needsUsername: Bool, _ body: (borrowing Credentials) throws -> R) throws -> R {
        usernameAsked = needsUsername
        if let pw = settings.password, !needsUsername || settings.username != nil {
            credentialsSent = true   // every handler sends what it got at once
            return try body(Credentials(username: settings.username ?? "", password: pw))
        }
        switch answeredCredentials {
        case .some(let c):
            credentialsSent = true
            return try body(c)
        case .none:
            break
        }
        if engine.phase != .awaitingCredentials {
            let q = EngineEvent.credentialsRequired(CredentialRequest(method: method, needsUsername: needsUsername,
                                                                      server: settings.serverDescription,
                                                                      channel: channelProtection))
            ask(q, phase: .awaitingCredentials)
        }
        throw AwaitingAnswer()
    }

    private func ask(_ q: EngineEvent, phase: ClientEngine.Phase) {
        engine.events.append(q)
        question = q
        phaseBeforeQuestion = engine.phase
        engine.phase = phase
    }

    /// The failure for a login the server answered with a close or with nonsense instead of
    /// a SecurityResult and ServerInit: it refused the credentials without saying so properly.
    private func refusedLogin() -> ProtocolError {
        // the server said no, as a failed SecurityResult would: retrying cannot help
        if engine.phaseAtFailure == nil { engine.phaseAtFailure = .authenticating }
        let what = usernameAsked ? "user name or password" : "password"
        return ProtocolError("the server closed the connection after the login; the \(what) was probably refused")
    }

    /// The stream ended here: a refused login when credentials went out just before, else nil.
    func connectionClosed() -> ProtocolError? {
        switch state {
        case .securityResult, .serverInit:
            return credentialsSent ? refusedLogin() : nil
        default:
            return nil
        }
    }

    /// What the channel a secret would travel over proves, now: the one place it is decided.
    /// Clear when nothing is encrypted; authenticated only when the server's certificate
    /// verified through an authority or its certificate or key is the one remembered;
    /// otherwise (anonymous TLS, ARD, an identity seen for the first time) anonymous.
    var channelProtection: ChannelProtection {
        guard let m = chosenMethod, m.protectsCredentials else { return .clear }
        switch peerIdentity {
        case .authority, .remembered: return .authenticated
        case .none, .acceptedNew: return .anonymous
        }
    }

    /// Accepts an identity already decided; otherwise asks (an event) and waits.
    func trust(_ id: ServerIdentity) throws {
        switch answeredTrust[id.fingerprint] {
        case .accept?: peerIdentity = .acceptedNew; return
        case .known?: peerIdentity = .remembered; return
        case .reject(let why)?: throw ProtocolError(why)
        case nil:
            if engine.phase != .awaitingTrust { ask(.trustRequired(id), phase: .awaitingTrust) }
            throw AwaitingAnswer()
        }
    }

    /// `.credentialsRequired` answered: kept until the unit that asked sent them. False when
    /// the login needs a user name and none came.
    func answer(_ c: consuming Credentials) -> Bool {
        guard case .credentialsRequired(let req)? = lastQuestion, !req.needsUsername || !c.username.isEmpty else { return false }
        answeredCredentials = consume c
        engine.phase = phaseBeforeQuestion
        return true
    }

    /// `.trustRequired` answered. False when no such question waits.
    func answer(_ d: TrustDecision) -> Bool {
        guard engine.phase == .awaitingTrust, case .trustRequired(let id)? = lastQuestion else { return false }
        answeredTrust[id.fingerprint] = d
        engine.phase = phaseBeforeQuestion
        return true
    }

    /// The question the engine waits on, if any.
    var lastQuestion: EngineEvent? {
        switch engine.phase {
        case .awaitingCredentials, .awaitingTrust: return question
        default: return nil
        }
    }

    // MARK: SecurityContext

    func send(_ bytes: [UInt8]) { engine.writer.write(bytes) }

    func sendSecret(_ bytes: inout [UInt8]) { engine.writer.writeSecret(&bytes) }

    func verifiedByAuthority(fingerprint: [UInt8]) { peerIdentity = .authority(fingerprint: fingerprint) }

    func startChannel(_ ch: SecureChannel) { engine.startChannel(ch) }

    func stopChannel() { engine.stopChannel() }

    func describeSecurity(_ s: String) { securityDescription = s }

    func chose(_ m: SecurityMethod) { chosenMethod = m }

    /// A server that now offers only methods weaker than this host was reached with before.
    func downgrade(offered: String) -> ProtocolError {
        let before = settings.strongestBefore?.listName ?? "a stronger method"
        return ProtocolError("refusing to connect: \(settings.serverDescription) was reached with \(before) before and now offers only \(offered), which is weaker; someone may be intercepting the connection. If the server's set-up really changed, name the weaker type in the accepted security types")
    }

    private func sanitize(_ s: String) -> String { ServerText.printable(s, limit: 500) }
}

/// Thrown inside a parse when the engine has asked a question (credentials, trust): the unit
/// is rolled back and parsed again after the answer. Never escapes the engine.
struct AwaitingAnswer: Error {}
