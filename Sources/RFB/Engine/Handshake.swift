/// The handshake: protocol version, security type (and the type's own handler), SecurityResult
/// and ServerInit; the hooks security handlers call; the answers to the engine's questions.
extension ClientEngine {
    /// One handshake unit (the states before `.messageType`).
    func handshakeStep(_ r: inout ByteReader) throws -> Bool {
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
                events.append(.securityChosen(SecurityType.none)); startInit()
            case UInt32(SecurityType.vncAuth):
                guard settings.allowedTypes.contains(SecurityType.vncAuth) else {
                    if settings.securityTypes.contains(SecurityType.vncAuth) { throw downgrade(offered: "VncAuth") }
                    throw ProtocolError("server wants VNC authentication, which the accepted security types exclude")
                }
                chose(.type(SecurityType.vncAuth))
                events.append(.securityChosen(SecurityType.vncAuth)); state = .vncChallenge; phase = .authenticating
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
            output.append(chosen)
            events.append(.securityChosen(chosen))
            securityDescription = SecurityType.name(chosen)
            switch chosen {
            case SecurityType.vncAuth: state = .vncChallenge; phase = .authenticating
            case SecurityType.none:
                if minorVersion >= 8 { state = .securityResult(chosen) } else { startInit() }   // 3.7 sends no SecurityResult for None
            case SecurityType.veNCrypt:
                state = .handler(VeNCryptHandler(), chosen); phase = .authenticating
            case SecurityType.ra2, SecurityType.ra2ne, SecurityType.ra2_256, SecurityType.ra2ne_256:
                state = .handler(RSAAESHandler(type: chosen, fixed: fixedKeys), chosen); phase = .authenticating
            case SecurityType.appleRemoteDesktop:
                state = .handler(ARDHandler(fixed: fixedKeys), chosen); phase = .authenticating
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
            if minorVersion >= 8 { state = .failureReason(prefix: what) }
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
                try checkSize(w, h, what: "ServerInit")
            } catch let e as ProtocolError {
                throw credentialsSent ? refusedLogin() : e
            }
            let name = try r.string(nameLen)
            serverFormat = pf
            // the login is over: no password is kept (its Secret zeroes itself as it goes)
            answeredCredentials = nil
            desktopName = ServerText.printable(name)
            framebuffer = Framebuffer(width: w, height: h, allocator: pixelAllocator)
            phase = .normal
            state = .messageType
            // Our format, our encodings, then the first full update.
            output += ClientMessage.setPixelFormat(settings.pixelFormat)
            sendEncodings()
            output += ClientMessage.updateRequest(incremental: false, Rect(x: 0, y: 0, w: w, h: h))
            counters.requests += 1
            events.append(.ready(name: desktopName, width: w, height: h))
        default:
            throw ProtocolError("internal: no handshake state")
        }
        return true
    }

    func handleVersion(_ s: String) throws {
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
        if major == 3 && minor < 7 { minorVersion = 3 }
        else if major == 3 && minor == 7 { minorVersion = 7 }
        else { minorVersion = 8 }
        output += Array(String(format3(minorVersion)).utf8)
        phase = .security
        state = minorVersion == 3 ? .securityType33 : .securityList
    }

    func startInit() {
        output.append(settings.shared ? 1 : 0)
        phase = .initialising
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
        if phase != .awaitingCredentials {
            let q = EngineEvent.credentialsRequired(CredentialRequest(method: method, needsUsername: needsUsername,
                                                                      server: settings.serverDescription,
                                                                      channel: channelProtection))
            events.append(q)
            question = q
            phaseBeforeQuestion = phase
            phase = .awaitingCredentials
        }
        throw AwaitingAnswer()
    }

    /// The failure for a login the server answered with a close or with nonsense instead of
    /// a SecurityResult and ServerInit: it refused the credentials without saying so properly.
    func refusedLogin() -> ProtocolError {
        // the server said no, as a failed SecurityResult would: retrying cannot help
        if phaseAtFailure == nil { phaseAtFailure = .authenticating }
        let what = usernameAsked ? "user name or password" : "password"
        return ProtocolError("the server closed the connection after the login; the \(what) was probably refused")
    }

    /// The transport reached the end of the stream (the thread that feeds the engine). What the
    /// engine knows of why, as the error that ends the connection; nil when it knows nothing
    /// more than that the connection closed.
    public func connectionClosed() -> ProtocolError? {
        switch state {
        case .securityResult, .serverInit:
            return credentialsSent ? fail(refusedLogin()) : nil
        default:
            return nil
        }
    }

    /// What the channel a secret would travel over proves, now: the one place it is decided.
    /// Clear when nothing is encrypted; authenticated only when the server's certificate
    /// verified through an authority or its certificate or key is the one remembered;
    /// otherwise (anonymous TLS, ARD, an identity seen for the first time) anonymous.
    public var channelProtection: ChannelProtection {
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
            if phase != .awaitingTrust {
                events.append(.trustRequired(id))
                question = .trustRequired(id)
                phaseBeforeQuestion = phase
                phase = .awaitingTrust
            }
            throw AwaitingAnswer()
        }
    }

    /// The answer to `.credentialsRequired`; parsing goes on with what is buffered. A user
    /// name the method needs and did not get fails the handshake. The engine keeps `c` only
    /// until it is sent.
    public func provideCredentials(_ c: consuming Credentials) throws {
        guard phase == .awaitingCredentials else { return }
        guard case .credentialsRequired(let req)? = lastQuestion, !req.needsUsername || !c.username.isEmpty else {
            throw fail(ProtocolError("the login needs a user name, and none was given"))
        }
        answeredCredentials = consume c
        phase = phaseBeforeQuestion
        try parse()
    }

    /// The answer to `.trustRequired`: accepted, or refused with the reason shown.
    public func answerTrust(_ d: TrustDecision) throws {
        guard phase == .awaitingTrust, case .trustRequired(let id)? = lastQuestion else { return }
        answeredTrust[id.fingerprint] = d
        phase = phaseBeforeQuestion
        try parse()
    }

    /// Ends a handshake that waits on a question nobody can answer (the user cancelled, no
    /// terminal to ask on): the connection fails with `reason`.
    public func cancelHandshake(_ reason: String) -> ProtocolError {
        fail(ProtocolError(reason))
    }

    /// The question the engine waits on, if any.
    public var lastQuestion: EngineEvent? {
        switch phase {
        case .awaitingCredentials, .awaitingTrust: return question
        default: return nil
        }
    }

    // MARK: security hooks

    func send(_ bytes: [UInt8]) { output += bytes }

    func sendSecret(_ bytes: inout [UInt8]) {
        output += bytes
        VNCAuth.wipe(&bytes)
        outputHoldsSecret = true
    }

    func verifiedByAuthority(fingerprint: [UInt8]) { peerIdentity = .authority(fingerprint: fingerprint) }

    func startChannel(_ ch: SecureChannel) {
        flushOutput()   // what is queued was meant to go out before encryption starts
        channel = ch
        channelStarting = true
    }

    func stopChannel() {
        flushOutput()   // the last encrypted message goes out before the channel ends
        channelStopping = true
    }

    func describeSecurity(_ s: String) { securityDescription = s }

    func chose(_ m: SecurityMethod) { chosenMethod = m }

    /// A server that now offers only methods weaker than this host was reached with before.
    func downgrade(offered: String) -> ProtocolError {
        let before = settings.strongestBefore?.listName ?? "a stronger method"
        return ProtocolError("refusing to connect: \(settings.serverDescription) was reached with \(before) before and now offers only \(offered), which is weaker; someone may be intercepting the connection. If the server's set-up really changed, name the weaker type in the accepted security types")
    }

    private func format3(_ minor: Int) -> String { "RFB 003.00\(minor)\n" }

    func sanitize(_ s: String) -> String { ServerText.printable(s, limit: 500) }
}
