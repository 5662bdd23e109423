import ArgumentParser
import Foundation
import RFB
import VNCSession
import SDLViewer
import Interaction

/// Exit with a one-line reason on stderr (what was wrong and, where we can, how to fix it).
func die(_ msg: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("viewer: \(msg)\n".utf8))
    exit(code)
}

/// Options shared by every command that connects to a server.
struct ConnectionOptions: ParsableArguments {
    @Argument(help: "Server: host, host:display, host::port, [v6addr]:display, unix:/path, vnc://[user@]host[:port]. With --listen: the port to listen on (default 5500).")
    var host: String?

    @Option(help: "Reach the server through an SSH gateway ([user@]gateway[:port]) with the system ssh (ssh -W; FARCAST_SSH overrides the command); the host is as seen from the gateway (default localhost).")
    var via: String?

    @Flag(help: "Wait for a server to connect to us (reverse connection, as vncviewer -listen; x11vnc -connect, vncconfig -connect).")
    var listen = false

    @Option(help: "Seconds to wait for a connection to be made.")
    var connectTimeout: Double = 10

    @Option(help: "Encodings in order of preference, e.g. zrle,copyrect (raw,copyrect,rre,corre,hextile,zlib,zrle,tight).")
    var encodings: String?

    @Option(help: "Password file in vncpasswd format (TigerVNC/TightVNC). VNC_PASSWORD is used when absent.")
    var passwordFile: String?

    @Option(help: "Tight JPEG quality 0-9 (lossy); omit for lossless.")
    var quality: Int?

    @Option(help: "Compression level 0-9.")
    var compress: Int?

    @Option(help: "Pixel format to ask for: rgb888 (default), rgb565, bgr233, cmap8 (8 bpp colour map).")
    var pixelFormat: String = "rgb888"

    @Option(help: "Security types to accept, strongest first (vncviewer's SecurityTypes names): X509Plain, X509Vnc, X509None, RA2_256, RA2, TLSPlain, TLSVnc, TLSNone, RA2ne_256, RA2ne, ARD, Plain, VncAuth, None. Default: all, in that order. Only these are ever used.")
    var security: String?

    @Option(help: "CA certificates (PEM) for the X509 security types; default: the system's store.")
    var x509Ca: String?

    @Flag(help: "Accept and remember a server certificate or RSA-AES key not seen before without asking (a changed one is still refused).")
    var trustNewCertificate = false

    @Option(help: "Known-hosts file for remembered certificates and keys (default ~/.config/farcast/known_hosts).")
    var knownHosts: String?

    @Flag(help: "After a successful login, save the password given or typed: in the desktop's Secret Service (GNOME Keyring, KWallet) when one runs, else in ~/.config/farcast/credentials (mode 0600, plain text like .netrc). Saved passwords are used when none is given.")
    var savePassword = false

    @Flag(help: "Ask the server to disconnect other clients.")
    var exclusive = false

    @Flag(name: .shortAndLong, help: "Print progress to stderr.")
    var verbose = false

    func validate() throws {
        if let q = quality, !(0...9).contains(q) { throw ValidationError("--quality must be 0-9 (got \(q))") }
        if let c = compress, !(0...9).contains(c) { throw ValidationError("--compress must be 0-9 (got \(c))") }
        if PixelFormat(name: pixelFormat) == nil {
            throw ValidationError("--pixel-format '\(pixelFormat)' is unknown; use rgb888, rgb565, bgr233 or cmap8")
        }
    }

    /// Where to connect (or, with --listen, where to wait). Bad input exits with a message.
    func plan() -> ConnectionPlan {
        if listen {
            var p = ConnectionPlan(target: .tcp(HostSpec(host: "localhost", port: 5900)))
            if let h = host {
                guard let port = Int(h), (1...65535).contains(port) else { die("--listen takes a port number (got '\(h)')", code: 2) }
                p.listenPort = port
            } else { p.listenPort = 5500 }
            return p
        }
        guard let text = host ?? (via != nil ? "localhost" : nil) else {
            die("give a server to connect to (e.g. localhost:1 or vnc://host), or --listen to wait for one", code: 2)
        }
        do {
            var p = ConnectionPlan(target: try ConnectionTarget.parse(text).target, via: via)
            p.connectTimeout = connectTimeout
            return p
        } catch { die("\(error)", code: 2) }
    }

    /// A user name from a vnc://user@host URI.
    var uriUsername: String? { host.flatMap { try? ConnectionTarget.parse($0).username } ?? nil }

    /// VNC_USERNAME / VNC_PASSWORD / --password-file / the URI's user name.
    func credentialSources(prompt: Bool = TerminalPrompt.available) -> CredentialSources {
        var fromFile: [UInt8]? = nil
        if let f = passwordFile {
            guard let d = FileManager.default.contents(atPath: f) else { die("cannot read password file \(f)", code: 2) }
            guard d.count >= 8 else { die("\(f) is not a vncpasswd file (8 bytes expected; make one with 'vncpasswd -f')", code: 2) }
            fromFile = VNCAuth.decryptPasswordFile([UInt8](d.prefix(8)))
        }
        var c = CredentialSources.fromEnvironment(passwordFromFile: fromFile, prompt: prompt)
        c.username = c.username ?? uriUsername
        return c
    }

    /// Saved credentials are looked up when none are given; saved after login with --save-password.
    func credentialRecorder() -> CredentialRecorder {
        CredentialRecorder(store: CredentialStores.preferred(), save: savePassword)
    }

    func settings(recorder: CredentialRecorder? = nil) -> ClientSettings {
        var s = ClientSettings()
        if let e = encodings {
            do { s.encodings = try Encoding.parseList(e) } catch { die("--encodings: \(error)", code: 2) }
        }
        s.jpegQuality = quality
        s.compressLevel = compress
        s.pixelFormat = PixelFormat(name: pixelFormat) ?? .native
        s.shared = !exclusive
        if let security {
            do { s.securityMethods = try SecurityMethod.parseList(security) } catch { die("--security: \(error)", code: 2) }
        }
        // Host name for TLS host name checking and the known-hosts entry.
        switch plan().target {
        case .tcp(let spec): s.serverName = spec.host; s.serverPort = spec.port
        case .unix(let path): s.serverName = path
        }
        if let ca = x509Ca {
            guard FileManager.default.isReadableFile(atPath: ca) else { die("cannot read --x509-ca file \(ca)", code: 2) }
            s.x509CAFile = ca
        }
        // VNC_USERNAME / VNC_PASSWORD / the file, saved credentials, then a terminal prompt for what is missing.
        let creds = credentialSources()
        let rec = recorder ?? credentialRecorder()
        // All through the provider, so that what the user gave can be saved after login.
        s.password = nil
        s.username = creds.username
        s.credentialProvider = rec.provider(given: creds, ask: creds.provider)
        let trustNew = trustNewCertificate, canAsk = TerminalPrompt.available
        let ask: @Sendable (ServerIdentity) -> Bool = { id in trustNew || (canAsk && TerminalPrompt.askTrust(id)) }
        s.trustEvaluator = KnownHosts(path: knownHosts ?? KnownHosts.defaultPath).evaluator(ask: ask)
        return s
    }
}

struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Connect, take the whole desktop, wait until updates go quiet, write a PNG.")

    @OptionGroup var conn: ConnectionOptions

    @Option(name: .short, help: "Output PNG file.")
    var output: String

    @Option(help: "Milliseconds without updates that count as quiet.")
    var quietMs: Int = 500

    @Option(help: "Seconds to wait at most.")
    var timeout: Double = 30

    func run() throws {
        var o = SnapshotOptions()
        let recorder = conn.credentialRecorder()
        o.settings = conn.settings(recorder: recorder)
        o.quietSeconds = Double(max(0, quietMs)) / 1000
        o.maxSeconds = timeout
        let verbose = conn.verbose
        do {
            let log: (String) -> Void = { if verbose { FileHandle.standardError.write(Data("viewer: \($0)\n".utf8)) } }
            let t = try conn.plan().open(log: log)
            defer { t.close() }
            log("connected to \(t.peer)")
            let r = try Snapshot.run(transport: t, options: o, log: log)
            try PNGWriter.write(r.framebuffer, to: output)
            if let saved = recorder.commit() { FileHandle.standardError.write(Data("viewer: \(saved)\n".utf8)) }
            if verbose { FileHandle.standardError.write(Data("viewer: wrote \(output) (\(r.framebuffer.width)x\(r.framebuffer.height), \(r.updates) updates)\n".utf8)) }
        } catch {
            die("\(error)")
        }
    }
}

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Decode recorded sessions (FBS files) as fast as possible and report the speed.")

    @Argument(help: "FBS 001.000 recordings.")
    var files: [String]

    @Flag(help: "One JSON object per file.")
    var json = false

    @Option(help: "Write the final framebuffer (without cursor) of the last file as PNG.")
    var finalFrame: String?

    @Option(help: "Decode each file this many times and report the fastest.")
    var repeats: Int = 1

    @Flag(help: "Also time zlib inflate and TurboJPEG decompress inside the decode (adds clock reads).")
    var split = false

    func run() throws {
        for f in files {
            do {
                let (r, fb) = try Bench.run(path: f, repeats: repeats, split: split)
                if json {
                    print("{\"file\":\"\(r.file)\",\"updates\":\(r.updates),\"rects\":\(r.rects),\"pixels\":\(r.pixels),\"bytes\":\(r.bytes),\"cpu_s\":\(String(format: "%.4f", r.cpuSeconds)),\"wall_s\":\(String(format: "%.4f", r.wallSeconds)),\"mpix_per_cpu_s\":\(String(format: "%.1f", r.mpixPerCPUSecond))\(split ? ",\"inflate_s\":\(String(format: "%.4f", r.inflateSeconds)),\"jpeg_s\":\(String(format: "%.4f", r.jpegSeconds))" : "")}")
                } else {
                    print("\(r.file): \(r.updates) updates, \(r.rects) rects, \(String(format: "%.1f", Double(r.pixels) / 1e6)) Mpixels, \(String(format: "%.3f", r.cpuSeconds)) CPU s, \(String(format: "%.1f", r.mpixPerCPUSecond)) Mpixel/s" + (split ? String(format: " (inflate %.3f s, jpeg %.3f s)", r.inflateSeconds, r.jpegSeconds) : ""))
                }
                if let out = finalFrame, let fb {
                    try PNGWriter.write(fb, to: out)
                }
            } catch {
                die("\(f): \(error)")
            }
        }
    }
}

struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Open the remote desktop in a window (the default command).")

    @OptionGroup var conn: ConnectionOptions

    @Flag(help: "Start in full screen (F11 toggles).")
    var fullscreen = false

    @Flag(help: "Send no input at all.")
    var viewOnly = false

    @Flag(help: "Touch input drives the pointer directly (the default): it goes where the finger is; tap clicks, double tap double-clicks, two/three-finger tap right/middle-clicks, hold then move drags, two fingers scroll, pinch zooms (four-finger tap resets). Swipe down from the top edge for the menu, up from the bottom edge for the on-screen keyboard.")
    var touch = false

    @Flag(help: "Touch input as a trackpad: one finger moves a soft cursor relatively (with acceleration), tap clicks at it, double-tap-and-hold drags, two fingers scroll, pinch zooms. Switchable in the F8 menu.")
    var trackpad = false

    @Option(help: "Start on remote screen N of a multi-monitor desktop (1 is the top-left one; F9 opens the screen picker). Without it, the last screen chosen for this host.")
    var monitor: Int?

    @Flag(help: "Make the server's desktop follow the window's size (asked once the window has been still for half a second), as TigerVNC's RemoteResize. With --display all, one remote screen per local display.")
    var remoteResize = false

    @Option(help: "Full screen on local display N (1, 2, ...), or 'all' to span every local display.")
    var display: String?

    @Flag(help: "Show the on-screen keyboard at start (a kiosk without a keyboard; also in the menu and by swiping up from the bottom edge).")
    var onScreenKeyboard = false

    @Option(help: "Clipboard text: both, send (local to remote only), receive (remote to local only) or off. UTF-8 with servers that offer the Extended Clipboard, Latin-1 otherwise. View-only sends nothing.")
    var clipboard: String = "both"

    @Option(help: "Largest clipboard text in bytes (UTF-8), both ways; larger texts are refused with a notice, never truncated. Default 10 MiB.")
    var clipboardMaxSize: Int?

    @Flag(help: "Also use the PRIMARY selection (select to copy, middle-click to paste): the server's text is put on it too, and a new local selection is sent (as --clipboard allows).")
    var clipboardPrimary = false

    @Option(help: "Scaling: fit (the window, aspect kept), 1:1, or a zoom such as 200% or 50%. When the desktop is larger than the window, Ctrl+Alt+wheel scrolls (Shift for sideways). F8 opens the menu.")
    var scale: String = "fit"

    @Option(help: "Keyboard layout as layout[,variant] (e.g. de or de,nodeadkeys); default: the session's, XKB_DEFAULT_*, or /etc/default/keyboard.")
    var keyboard: String?

    @Option(help: "Remap modifiers sent to the server, e.g. super=alt,alt=super (shift, control, alt, super, altgr, meta).")
    var mapModifier: String?

    @Option(help: "Reconnect automatically when the connection drops or cannot be made: never, always, or a number of attempts (backoff 1 s doubling to 30 s, with jitter).")
    var reconnect: String = "never"

    @Option(help: "When a connection ends and no retry is left: prompt (show why; R reconnects), quit, or reconnect (keep trying: a kiosk).")
    var onDisconnect: String = "prompt"

    func validate() throws {
        if ClipboardDirection(rawValue: clipboard.lowercased()) == nil {
            throw ValidationError("--clipboard takes both, send, receive or off, not '\(clipboard)'")
        }
        if let n = clipboardMaxSize, n < 1 { throw ValidationError("--clipboard-max-size takes a positive number of bytes, not \(n)") }
        if let m = monitor, m < 1 { throw ValidationError("--monitor counts remote screens from 1 (1 is the top-left one), not \(m)") }
        if let d = display, d.lowercased() != "all", (Int(d) ?? 0) < 1 {
            throw ValidationError("--display takes a local display number from 1, or 'all' to span every display; not '\(d)'")
        }
        if touch && trackpad { throw ValidationError("--touch and --trackpad choose one touch mode each: give one of them (the F8 menu switches at run time)") }
        if let m = monitor, m < 1 { throw ValidationError("--monitor counts remote screens from 1 (1 is the top-left one), not \(m)") }
        if let d = display, d.lowercased() != "all", (Int(d) ?? 0) < 1 {
            throw ValidationError("--display takes a local display number from 1, or 'all' to span every display; not '\(d)'")
        }
        if touch && trackpad { throw ValidationError("--touch and --trackpad choose one touch mode each: give one of them (the F8 menu switches at run time)") }
        if ScalingMode(parsing: scale) == nil { throw ValidationError("--scale takes fit, 1:1 or N% (10%-1600%), got '\(scale)'") }
        if ViewerWindow.OnDisconnect(rawValue: onDisconnect) == nil {
            throw ValidationError("--on-disconnect takes reconnect, quit or prompt (got '\(onDisconnect)')")
        }
    }

    func run() throws {
        let recorder = conn.credentialRecorder()
        var settings = conn.settings(recorder: recorder)
        // Missing credentials and unknown certificates/keys are asked in the window, not on the terminal.
        let prompter = WindowPrompter()
        let known = conn.credentialSources(prompt: false)
        settings.credentialProvider = recorder.provider(given: known, ask: known.provider { req, user in prompter.credentials(req, username: user) })
        let trustNew = conn.trustNewCertificate
        settings.trustEvaluator = KnownHosts(path: conn.knownHosts ?? KnownHosts.defaultPath)
            .evaluator { id in trustNew || prompter.trust(id) }
        // Live viewing defaults to JPEG quality 8 when Tight is used, as vncviewer does on fast links.
        if settings.jpegQuality == nil && conn.encodings == nil { settings.jpegQuality = 8 }
        if let n = clipboardMaxSize { settings.clipboardLimit = n }
        let onEnd = ViewerWindow.OnDisconnect(rawValue: onDisconnect) ?? .prompt
        var policy: ReconnectPolicy
        do { policy = try ReconnectPolicy.parse(reconnect) } catch { die("\(error)", code: 2) }
        if onEnd == .reconnect && policy.mode == .never { policy.mode = .always }
        let session = Session(plan: conn.plan(), settings: settings, reconnect: policy)
        if conn.verbose { session.log = { FileHandle.standardError.write(Data("viewer: \($0)\n".utf8)) } }
        if conn.savePassword {
            // Saved once the first login succeeded (the session reaches .ready after SecurityResult OK).
            Thread.detachNewThread {
                while true {
                    switch session.state {
                    case .ready:
                        if let saved = recorder.commit() { FileHandle.standardError.write(Data("viewer: \(saved)\n".utf8)) }
                        return
                    case .failed, .closed: return
                    default: Thread.sleep(forTimeInterval: 0.2)
                    }
                }
            }
        }
        let w = ViewerWindow(session: session, fullscreen: fullscreen, viewOnly: viewOnly,
                             scaling: ScalingMode(parsing: scale) ?? .fit)
        w.onDisconnect = onEnd
        w.clipboardDirection = ClipboardDirection(rawValue: clipboard.lowercased()) ?? .both
        w.clipboardPrimary = clipboardPrimary
        w.touchMode = trackpad ? .trackpad : .touch
        w.monitorNumber = monitor
        w.monitorMemory = MonitorMemory()
        w.remoteResize = remoteResize && !viewOnly
        if let d = display { w.localDisplay = d.lowercased() == "all" ? .all : Int(d).map { .number($0) } }
        w.showKeyboardAtStart = onScreenKeyboard && !viewOnly
        // the engine asks from inside the session's locked receive: let go of it while the user answers
        prompter.unlockWhileWaiting = session.lock
        w.prompter = prompter
        // Keys through xkbcommon with the local layout; the built-in US map only if that fails.
        let (spec, source) = KeyboardLayoutDetector.detect(override: keyboard, environment: ProcessInfo.processInfo.environment)
        do {
            let map = try KeyboardTranslator.parseModifierMap(mapModifier ?? "")
            w.keyTranslator = XKBKeyTranslator(try KeyboardTranslator(spec: spec, modifierMap: map))
            if conn.verbose { FileHandle.standardError.write(Data("viewer: keyboard \(spec) from \(source)\n".utf8)) }
        } catch let e as KeyboardError {
            if keyboard != nil || mapModifier != nil { die("\(e)", code: 2) }
            FileHandle.standardError.write(Data("viewer: \(e); using the built-in US key map\n".utf8))
        } catch { die("\(error)", code: 2) }
        let end: Session.State
        do { end = try w.run() } catch { die("\(error)") }
        // the window has shown why; the exit status and a line on stderr say it to scripts too
        if let why = w.endReason { die(why) }
        if case .failed(let why) = end { die(why) }
    }
}

@main
struct Viewer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "viewer",
        abstract: "Farcast, a VNC viewer.",
        subcommands: [ViewCommand.self, SnapshotCommand.self, BenchCommand.self, RenderBenchCommand.self],
        defaultSubcommand: ViewCommand.self)
}
