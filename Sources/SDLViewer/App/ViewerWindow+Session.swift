import CSDL2
import Foundation
import Interaction
import RFB
import VNCSession

/// Everything the window asks of or learns from the session, in one file: starting and stopping
/// it, its state, its events (questions go to `prompter`), and the framebuffer (read through the
/// session's scoped call). The prompt itself is in ViewerWindow+Prompt.swift.
extension ViewerWindow {
    /// Starts the session thread, before the window exists: its wake-ups do nothing until
    /// `wakeSession` makes them SDL events. Questions the session cannot answer itself come as
    /// events and are asked here; the answers go back to the session.
    func startSession() {
        session.wake = {}
        if prompter == nil {
            let s = session
            prompter = WindowPrompter { a in
                switch consume a {
                case .credentials(let c):
                    if let c { s.provideCredentials(c) } else { s.cancelLogin("authentication cancelled") }
                case .trust(let ok):
                    s.answerTrust(accepted: ok)
                }
            }
        }
        session.start()
    }

    /// From now on the session wakes the loop; once at once for what it did before.
    func wakeSession(_ wake: WakeSignal) {
        session.wake = { wake.signal() }
        wake.signal()
    }

    /// Stops the session and waits briefly for its thread, so teardown is orderly: the thread
    /// looks at stop() between rects, so this is quick whatever the server sends.
    /// The thread's wake-ups stop first: after SDL_Quit one would push an event into a torn-down SDL.
    func stopSession() {
        session.wake = {}
        session.stop()
        if !session.waitUntilStopped(timeout: 5) {
            log("the session thread did not stop within 5 s")
        }
    }
    func retrySessionNow() { session.retryNow() }
    func restartSession() { session.restart() }
    func log(_ line: String) { session.log(line) }

    /// The session's state (the loop, the status panel and the end handling read it here).
    var sessionState: Session.State { session.state }

    /// Waiting to reconnect (per --reconnect): the countdown shows.
    var reconnecting: Bool {
        if case .waiting = sessionState { return true }
        return false
    }

    /// The one place the framebuffer is read: under its lock, which the session thread holds
    /// for one rect at a time.
    func withFramebuffer<T>(_ body: (Framebuffer?) -> T) -> T {
        session.withFramebuffer(body)
    }

    /// The same without waiting: nil while the session thread is inside a rect.
    func withFramebufferIfFree<T>(_ body: (Framebuffer?) -> T) -> T? {
        session.withFramebufferIfFree(body)
    }

    /// Session events and state (the wake-up said something changed).
    func sessionChanged() {
        for ev in session.takeEvents() {
            switch ev {
            case .ready(let name, let w, let h):
                SDL_SetWindowTitle(window, player == nil ? "\(name) — Farcast" : "\(name) — Farcast playback")
                fitWindowToDesktop(width: w, height: h)
            case .desktopName(let name):
                SDL_SetWindowTitle(window, player == nil ? "\(name) — Farcast" : "\(name) — Farcast playback")
            case .cursor(let c):
                setRemoteCursor(c)
            case .lockLights, .pointerMode, .powerControl, .powerControlFailed, .audioData, .audioEnded, .audioBegan:
                remoteInputEvent(ev)
            case .credentialsRequired(let req):
                // a saved password the session would not send on its own: filled in, to confirm
                let saved = session.takeCredentialPrefill()
                prompter?.post(.credentials(req, username: config.knownUsername), prefill: saved)
                showPendingPrompt()
            case .trustRequired(let id):
                prompter?.post(.trust(id))
                showPendingPrompt()
            case .screenLayout(let l, _):
                let first = router.screenLayout == nil
                showNotice(monitors?.layoutChanged(l, in: &router.ui))
                if router.picker != nil { router.closePicker(); applyCursor() }
                syncSizes()
                applyMonitor()
                // the desktop is made to fit the window as soon as the server says it can be
                if first && remoteResize { resize.due = ViewerWindow.now() }
            case .updateEnded:
                showNotice(monitors?.noLayoutNotice(router.ui))
            case .desktopSizeRequestResult(let status, let message):
                resize.answerPending = false
                if !status.isSuccess {
                    log("remote resize: \(message)")
                    showNotice("Remote resize refused: \(message)")
                }
            case .cutText(let t):
                clipboard?.serverText(t)
            case .cutTextSkipped, .cutTextNotSent:
                clipboardRefused(ev)
            default: break
            }
        }
        let st = sessionState
        if case .waiting = st { router.ui.reconnecting = true } else { router.ui.reconnecting = false }
        switch st {
        case .ready:
            // a touch script (FARCAST_TOUCH_REPLAY) plays once the desktop is there
            if !everReady, let path = config.touchReplayPath {
                TouchReplay.start(path: path, log: session.log)
            }
            everReady = true
        case .failed where prompter?.cancelledAuthentication == true:
            if router.ui.ended == nil {
                endReason = "authentication cancelled"
                if config.onDisconnect == .quit { quit = true; break }
                ended("Authentication cancelled")
            }
        case .failed(let why) where config.onDisconnect == .quit:
            endReason = everReady ? "connection lost: \(why)" : why
            quit = true
        case .failed(let why):
            // the session's reason already names the server ("cannot connect to HOST: ...")
            if router.ui.ended == nil { ended(ViewerUI.headline(why, everReady: everReady)) }
        case .closed:
            quit = true
        default:
            // connecting, authenticating, waiting (reconnecting per --reconnect): the status
            // panel says so
            break
        }
        syncSizes()
    }

    /// The connection is over: the message stays up (the menu closes) until dismissed.
    func ended(_ message: String) {
        router.ui.end(message: message, offerReconnect: config.onDisconnect == .prompt)
        applyCursor()
    }

    /// The status panel's message and hint, if one is up.
    func statusMessage() -> (String, String?)? {
        if let e = router.ui.ended {
            return (e.message, ViewerUI.endedHint(offerReconnect: e.offerReconnect))
        }
        // a playback seek reopens the recording: no "connecting" flash
        if player != nil, sessionState == .connecting || sessionState == .authenticating { return nil }
        switch sessionState {
        case .waiting(let why, let at, let n):
            let secs = max(0, Int((at - monotonicSeconds()).rounded(.up)))
            return (ViewerUI.headline(why, everReady: everReady), ViewerUI.reconnectHint(seconds: secs, attempt: n,
                                                                                                    canQuit: kiosk.menuLock == .open))
        case .connecting: return ("Connecting to \(session.spec)…", nil)
        case .authenticating: return ("Authenticating…", nil)
        default: return nil
        }
    }

    /// SetDesktopSize for the window's desktop area (output pixels), one screen per spanned
    /// local display with `--display all`. Skipped when nothing would change.
    func requestRemoteResize() {
        guard remoteResize, session.supportsSetDesktopSize else { return }
        let vp = router.viewport
        guard let req = resize.request(output: (vp.outputWidth, vp.outputHeight),
                                       pixelsPerPoint: (vp.pixelsPerPointX, vp.pixelsPerPointY),
                                       current: session.screenLayout) else { return }
        do {
            try session.requestDesktopSize(width: req.width, height: req.height, screens: req.screens)
            resize.answerPending = true
            log("remote resize: asked for \(req.width)x\(req.height)\(req.screens.map { " with \($0.count) screens" } ?? "")")
        } catch {
            log("remote resize: \(error)")
        }
    }
}
