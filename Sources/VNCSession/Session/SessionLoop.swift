import Foundation
import RFB

/// The connection loop (session thread): connect, feed the engine, apply commands, send,
/// watch liveness, reconnect per the policy.
extension Session {
    /// Why one connection ended.
    enum Outcome {
        case stopped
        /// `reconnectNow()`: the next connection starts at once.
        case restart
        /// `retryable` is false for what retrying cannot fix (authentication, no common security type).
        case lost(String, retryable: Bool, wasReady: Bool)
    }

    /// What one connection carries over the loop's iterations (session thread only).
    struct Connection {
        let engine: ClientEngine
        let transport: any Transport
        var ready = false
        /// Seconds of handshake so far; time waiting for the user's answer does not count.
        var handshakeTime = 0.0
        var lastTick = monotonicSeconds()
        var lastByte = monotonicSeconds()
        var probeSentAt: Double?
        /// Keys and buttons the server has been told are held, so the next connection can
        /// release them; and where the pointer last was.
        var heldKeys: [UInt32: UInt32?] = [:]
        var heldButtons: UInt16 = 0
        var lastPointer = (x: 0, y: 0)
        /// Rect pixels decoded when the front end was last woken.
        var pixelsSeen = 0
        /// The recording observer on this connection's engine.
        var recorder: (any RecordingObserver)?
        /// Bytes received so far, and where the current stall window started (time, bytes).
        var received = 0
        var stallWindow: (start: Double, bytes: Int)?
        /// Measurement and adaptive quality (SessionLink.swift).
        var link = LinkState()
    }

    func run() {
        var attempt = 0
        var held: (keys: [UInt32: UInt32?], at: (x: Int, y: Int), buttons: Bool)? = nil
        while !isStopping {
            setState(.connecting)
            let (outcome, left) = runOnce(release: held)
            held = left
            if isStopping { break }
            // asked for (however the connection then ended): the next one at once
            let restart: Bool = lock.withLock { defer { reconnectRequested = false }; return reconnectRequested }
            if restart {
                attempt = 0
                continue
            }
            guard case .lost(let reason, let retryable, let wasReady) = outcome else { break }
            if wasReady { attempt = 0 }   // backoff starts over after a good connection
            attempt += 1
            guard retryable, reconnect.allows(attempt: attempt) else {
                setState(.failed(reason))
                return
            }
            let retryAt = monotonicSeconds() + reconnect.delay(attempt: attempt, unit: Double.random(in: 0..<1))
            setState(.waiting(reason: reason, retryAt: retryAt, attempt: attempt))
            wakeup.lock()
            retryRequested = false
            while !retryRequested && !isStopping && monotonicSeconds() < retryAt {
                _ = wakeup.wait(until: Date(timeIntervalSinceNow: max(0.01, retryAt - monotonicSeconds())))
            }
            wakeup.unlock()
        }
        setState(.closed)
    }

    /// One connection from open to end. `release`: what the previous connection left held,
    /// released once this one is ready. Returns what this one leaves held.
    func runOnce(release: (keys: [UInt32: UInt32?], at: (x: Int, y: Int), buttons: Bool)?)
        -> (Outcome, (keys: [UInt32: UInt32?], at: (x: Int, y: Int), buttons: Bool)?) {
        lock.withLock {
            commands.removeAll()
            pendingCutText = nil   // like other input, not replayed on a later connection
        }
        let t: any Transport
        do {
            t = try connector(log)
        } catch {
            return (.lost("\(error)", retryable: true, wasReady: false), release)
        }
        let engine = ClientEngine(settings: connectionSettings(t), workers: decodeWorkers, pixels: pixels)
        engine.workBudgetPixels = Session.workBudgetPixels
        engine.onWorkerFailure = { [weak self] in self?.signalSessionThread() }
        lock.withLock { transport = t; decodeCancellation = engine.cancellation }
        defer {
            lock.lock()
            transport = nil
            decodeCancellation = nil
            // credentials for this connection's questions go with it (zeroed as they go)
            pendingCredentials = nil
            credentialPrefill = nil
            lock.unlock()
            t.close()
        }
        if isStopping { return (.stopped, release) }
        setState(.authenticating)
        var c = Connection(engine: engine, transport: t)
        if let pins = adaptiveQuality { c.link.adaptive = AdaptiveQuality(pins: pins) }
        var phaseBefore = ClientEngine.Phase.version
        let outcome: Outcome
        do {
            outcome = try loop(&c, release: release, phaseBefore: &phaseBefore)
        } catch let err as ProtocolError {
            // failures during security negotiation are the server (or the user) saying no:
            // retrying cannot help
            let during: Bool
            switch engine.phaseAtFailure ?? phaseBefore {
            case .security, .authenticating, .awaitingCredentials, .awaitingTrust: during = true
            default: during = false
            }
            outcome = .lost(err.message, retryable: !during, wasReady: c.ready)
        } catch {
            outcome = .lost(isStopping ? "stopped" : "connection lost: \(error)", retryable: true, wasReady: c.ready)
        }
        // stopped (whatever the loop saw of the reads being shut down): end TLS in order
        if isStopping || lock.withLock({ reconnectRequested }) { sayGoodbye(engine, t) }
        let left = c.ready ? (c.heldKeys.isEmpty && c.heldButtons == 0 ? nil : (c.heldKeys, c.lastPointer, c.heldButtons != 0))
                           : release
        return (outcome, left)
    }

    private func loop(_ c: inout Connection, release: (keys: [UInt32: UInt32?], at: (x: Int, y: Int), buttons: Bool)?,
                      phaseBefore: inout ClientEngine.Phase) throws -> Outcome {
        let e = c.engine, t = c.transport
        var toRelease = release
        while true {
            phaseBefore = e.phase
            try applyCommands(&c)
            syncRecorder(&c)
            try publish(&c)
            tickLink(&c, now: monotonicSeconds())
            if c.ready, let r = toRelease {
                toRelease = nil
                log("releasing \(r.keys.count) keys held when the last connection dropped")
                for (k, code) in r.keys { e.sendKey(k, down: false, xtKeycode: code) }
                if r.buttons { e.sendPointer(x: r.at.x, y: r.at.y, buttons: 0) }
            }
            if e.hasOutput { try t.send(e.takeOutput()) }
            if isStopping { return .stopped }
            if lock.withLock({ reconnectRequested }) { return .restart }
            let now = monotonicSeconds()
            let waiting = e.phase == .awaitingCredentials || e.phase == .awaitingTrust
            if !c.ready && !waiting { c.handshakeTime += now - c.lastTick }
            c.lastTick = now
            if !c.ready && c.handshakeTime > liveness.handshakeTimeout {
                return .lost("the server did not complete the handshake within \(Int(liveness.handshakeTimeout)) s", retryable: true, wasReady: false)
            }
            if let stalled = stallCheck(&c, now: now, waiting: waiting) { return stalled }
            if c.ready {
                if let sent = c.probeSentAt, now - sent > liveness.deadAfter {
                    return .lost("no answer from the server for \(Int(now - c.lastByte)) s (connection dead)", retryable: true, wasReady: true)
                }
                if c.probeSentAt == nil && now - c.lastByte > liveness.probeAfter {
                    c.probeSentAt = now
                    e.requestUpdate(incremental: false, rect: Rect(x: 0, y: 0, w: 1, h: 1))
                    continue
                }
            }
            // a rect a worker could not decode ends the connection now, not at the update's end
            try e.checkWorkers()
            if e.hasDeferredWork {
                // complete units still buffered: decode on without waiting for the socket
                phaseBefore = e.phase
                let t0 = monotonicSeconds()
                try e.resume()
                let t1 = monotonicSeconds()
                measureReceive(&c, wasMid: false, start: t0, end: t1, bytes: 0)
                // a backlog is ours to decode, not the server's silence: the liveness clock
                // (and a probe's deadline) counts from when the socket is read again
                c.lastByte = t1
                if c.probeSentAt != nil { c.probeSentAt = t1 }
                continue
            }
            let (readable, woken) = wakePipe.read >= 0 ? t.waitReadable(timeout: 0.25, orWake: wakePipe.read)
                                                       : (t.waitReadable(timeout: 0.05), true)
            if woken { drainWakePipe() }
            if !readable { continue }
            phaseBefore = e.phase
            let wasMid = e.isMidMessage, t0 = monotonicSeconds()
            let got = try e.receive(atLeast: 65536) { p, cap in try t.recv(into: p, capacity: cap) }
            measureReceive(&c, wasMid: wasMid, start: t0, end: monotonicSeconds(), bytes: got)
            if got == 0 || e.streamEnded {
                if isStopping { return .stopped }   // our own stop() shut the reads
                // the engine may know why (a login refused by a close): that message, not retried
                if let why = e.connectionClosed() { throw why }
                if e.streamEnded { sayGoodbye(e, t) }
                return .lost(c.ready ? "connection closed by the server" : "the server closed the connection during the handshake",
                             retryable: true, wasReady: c.ready)
            }
            c.lastByte = monotonicSeconds()
            c.received += got
            c.probeSentAt = nil
        }
    }

    /// A server that stopped in the middle of something is given up: a handshake silent for
    /// `handshakeSilence`, or a message arriving slower than `stallMinimumRate` over
    /// `stallWindow`. A server with nothing to send (between messages) is idle, not stalled;
    /// the liveness probe looks after that case.
    private func stallCheck(_ c: inout Connection, now: Double, waiting: Bool) -> Outcome? {
        let e = c.engine
        if !c.ready {
            guard !waiting else { c.lastByte = now; return nil }   // the user's time, not the server's
            let silent = now - c.lastByte
            guard silent > liveness.handshakeSilence else { return nil }
            return .lost("the server stopped answering during the handshake (nothing for \(Int(silent)) s)",
                         retryable: true, wasReady: false)
        }
        // buffered work is ours to do, not the server's to send
        guard e.isMidMessage, !e.hasDeferredWork else { c.stallWindow = nil; return nil }
        guard let w = c.stallWindow else { c.stallWindow = (now, c.received); return nil }
        let span = now - w.start
        guard span >= liveness.stallWindow else { return nil }
        let got = c.received - w.bytes
        guard Double(got) < liveness.stallMinimumRate * span else {
            c.stallWindow = (now, c.received)
            return nil
        }
        return .lost("the server stalled in the middle of an update (\(got) bytes in \(Int(span.rounded())) s)",
                     retryable: true, wasReady: true)
    }

    /// Puts the recorder the front end chose on this connection's engine (or takes it off).
    private func syncRecorder(_ c: inout Connection) {
        let wanted: (any RecordingObserver)? = lock.withLock { recorder }
        guard wanted !== c.recorder else { return }
        c.recorder = wanted
        if let wanted {
            c.engine.startRecording(wanted)
            if c.ready { c.engine.requestUpdate(incremental: false) }
        } else {
            c.engine.stopRecording()
        }
    }

    /// Ends an encrypted stream in order before the socket closes (TLS close_notify), best
    /// effort: a server that does not read does not hold the stop up.
    func sayGoodbye(_ e: ClientEngine, _ t: any Transport) {
        // wayvnc before 0.6 (neatvnc before its "remote closing TLS connection" fix; Debian
        // 12's 0.5) spins a core for ever on a client's close_notify. It names every desktop
        // "WayVNC"; an error line in its log is the lesser harm.
        guard e.server.name != "WayVNC" else { return }
        e.closeSecureChannel()
        let bye = e.takeOutput()
        if !bye.isEmpty { _ = t.trySend(bye) }
    }

    /// The settings for one connection: the peer as identity for a reverse connection, and
    /// the least security this host was reached with before (unless the user named the types).
    private func connectionSettings(_ t: any Transport) -> ClientSettings {
        var s = settings
        if identityFromPeer {
            let host = Session.hostPart(t.peer)
            s.serverName = host
            s.identity = "reverse=\(host)"   // one word: the stores are space-separated
        }
        if !s.securityNamedByUser, let before = answers.reachedBefore(s.serverDescription) {
            s.minimumStrength = before.strength
            s.strongestBefore = before
        }
        return s
    }

    /// "1.2.3.4:5678" / "[::1]:5678" → the address alone.
    static func hostPart(_ peer: String) -> String {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") { return String(peer[peer.index(after: peer.startIndex)..<close]) }
        if let colon = peer.lastIndex(of: ":"), peer.filter({ $0 == ":" }).count == 1 { return String(peer[..<colon]) }
        return peer
    }

    /// Hands queued commands and clipboard text to the engine (session thread).
    private func applyCommands(_ c: inout Connection) throws {
        let e = c.engine
        let (queued, cut): ([Command], OutgoingCutText?) = lock.withLock {
            defer { commands.removeAll(); if e.phase == .normal { pendingCutText = nil } }
            return (commands, e.phase == .normal ? pendingCutText : nil)
        }
        for cmd in queued {
            switch cmd {
            case .pointer(let x, let y, let buttons):
                guard let fb = e.framebuffer else { continue }
                let cx = max(0, min(fb.width - 1, x)), cy = max(0, min(fb.height - 1, y))
                e.sendPointer(x: cx, y: cy, buttons: buttons)
                c.heldButtons = buttons
                c.lastPointer = (cx, cy)
            case .key(let sym, let down, let code):
                e.sendKey(sym, down: down, xtKeycode: code)
                if down { c.heldKeys[sym] = code } else { c.heldKeys[sym] = nil }
            case .desktopSize(let w, let h, let screens):
                do { try e.requestDesktopSize(width: w, height: h, screens: screens) } catch { log("remote resize: \(error)") }
            case .updateRequest(let incremental):
                e.requestUpdate(incremental: incremental)
            case .credentials:
                lock.lock()
                let taken = pendingCredentials.take()
                lock.unlock()
                guard let cred = taken else { continue }
                if case .credentialsRequired(let req)? = e.lastQuestion { answers.typed(req, cred) }
                try e.provideCredentials(cred)
            case .trust(let accepted, let known):
                guard case .trustRequired(let id)? = e.lastQuestion else { continue }
                try e.answerTrust(known ? .known : accepted ? answers.accepted(id) : KnownHosts.notTrusted(id))
            case .cancelLogin(let reason):
                if e.lastQuestion != nil { throw e.cancelHandshake(reason) }
            case .relativePointer(let dx, let dy, let buttons):
                e.sendRelativePointer(dx: dx, dy: dy, buttons: buttons)
                c.heldButtons = buttons
            case .power(let a):
                e.sendPowerAction(a)
            case .audio(let on):
                e.setAudio(enabled: on)
            }
        }
        if let cut {
            let dropped = e.sendCutText(cut)
            if dropped > 0 { log("clipboard: \(dropped) characters Latin-1 cannot carry were left out of the text sent") }
        }
    }

    /// Answers what the session can answer itself, then makes the engine's events, state and
    /// framebuffer visible to the front end (session thread).
    private func publish(_ c: inout Connection) throws {
        let e = c.engine
        var out: [EngineEvent] = []
        var failure: Error?
        var more = e.takeEvents()
        while !more.isEmpty && failure == nil {
            var next: [EngineEvent] = []
            for ev in more {
                switch ev {
                case .credentialsRequired(let req):
                    switch answers.credentials(req) {
                    case .use(let cred):
                        do { try e.provideCredentials(cred) } catch { failure = error }
                        next += e.takeEvents()
                        continue
                    case .ask(let prefill):
                        lock.lock()
                        credentialPrefill = prefill
                        lock.unlock()
                    }
                case .trustRequired(let id):
                    if let d = answers.trust(id) {
                        do { try e.answerTrust(d) } catch { failure = error }
                        next += e.takeEvents()
                        continue
                    }
                default: break
                }
                out.append(ev)
            }
            more = next
        }
        observeLink(&c, out, now: monotonicSeconds())
        let becameReady = !c.ready && e.phase == .normal
        // damage without a finished update (a long one) wakes the front end too
        let drew = e.stats.pixels != c.pixelsSeen
        c.pixelsSeen = e.stats.pixels
        if becameReady { c.ready = true }
        lock.withLock {
            if let fb = e.framebuffer { current = fb }
            if published.server != e.server { published = SessionSnapshot(server: e.server, link: published.link) }
            if becameReady { _state = .ready }
            events.append(out)
        }
        if becameReady {
            log("security: \(e.securityDescription)")   // e.g. the VeNCrypt subtype and TLS version
            log("ready")
            answers.loggedIn(e.settings.serverDescription, e.chosenMethod, e.peerIdentity)
        }
        if !out.isEmpty || becameReady || drew { wake() }
        if let failure { throw failure }
    }
}
