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
    @Argument(help: "Server: host, host:display, host::port, [v6addr]:display.")
    var host: String

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

    func spec() -> HostSpec {
        do { return try HostSpec.parse(host) } catch { die("\(error)", code: 2) }
    }

    func settings() -> ClientSettings {
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
        let hostText: String? = host
        if let h = hostText, let spec = try? HostSpec.parse(h) { s.serverName = spec.host; s.serverPort = spec.port }
        else { s.serverName = hostText ?? "" }
        if let ca = x509Ca {
            guard FileManager.default.isReadableFile(atPath: ca) else { die("cannot read --x509-ca file \(ca)", code: 2) }
            s.x509CAFile = ca
        }
        var fromFile: [UInt8]? = nil
        if let f = passwordFile {
            guard let d = FileManager.default.contents(atPath: f) else { die("cannot read password file \(f)", code: 2) }
            guard d.count >= 8 else { die("\(f) is not a vncpasswd file (8 bytes expected; make one with 'vncpasswd -f')", code: 2) }
            fromFile = VNCAuth.decryptPasswordFile([UInt8](d.prefix(8)))
        }
        // VNC_USERNAME / VNC_PASSWORD / the file, then a terminal prompt for what is missing.
        let creds = CredentialSources.fromEnvironment(passwordFromFile: fromFile)
        s.password = creds.password
        s.username = creds.username
        s.credentialProvider = creds.provider
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
        o.settings = conn.settings()
        o.quietSeconds = Double(max(0, quietMs)) / 1000
        o.maxSeconds = timeout
        let verbose = conn.verbose
        do {
            let r = try Snapshot.capture(conn.spec(), options: o) { if verbose { FileHandle.standardError.write(Data("viewer: \($0)\n".utf8)) } }
            try PNGWriter.write(r.framebuffer, to: output)
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

    @Option(help: "Scaling: fit (the window, aspect kept), 1:1, or a zoom such as 200% or 50%. When the desktop is larger than the window, Ctrl+Alt+wheel scrolls (Shift for sideways). F8 opens the menu.")
    var scale: String = "fit"

    func validate() throws {
        if ScalingMode(parsing: scale) == nil { throw ValidationError("--scale takes fit, 1:1 or N% (10%-1600%), got '\(scale)'") }
    }

    func run() throws {
        var settings = conn.settings()
        // Live viewing defaults to JPEG quality 8 when Tight is used, as vncviewer does on fast links.
        if settings.jpegQuality == nil && conn.encodings == nil { settings.jpegQuality = 8 }
        let session = Session(spec: conn.spec(), settings: settings)
        let w = ViewerWindow(session: session, fullscreen: fullscreen, viewOnly: viewOnly,
                             scaling: ScalingMode(parsing: scale) ?? .fit)
        let end: Session.State
        do { end = try w.run() } catch { die("\(error)") }
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
