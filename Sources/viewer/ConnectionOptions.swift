import ArgumentParser
import Foundation
import RFB
import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// Options shared by every command that connects to a server.
struct ConnectionOptions: ParsableArguments {
    @Argument(help: "Server: host, host:display, host::port, [v6addr]:display, unix:/path, vnc://[user@]host[:port]. With --listen: the port to listen on (default 5500).")
    var host: String?

    // unconditional: `--via -oX` takes "-oX" as the value (then refused in `validate`, as
    // `--via=-oX` is) rather than failing with "missing value"
    @Option(parsing: .unconditional, help: "Reach the server through an SSH gateway ([user@]gateway[:port]) with the system ssh (ssh -W; FARCAST_SSH overrides the command); the host is as seen from the gateway (default localhost).")
    var via: String?

    @Flag(help: "Wait for a server to connect to us (reverse connection, as vncviewer -listen; x11vnc -connect, vncconfig -connect). Only on loopback unless --listen-all.")
    var listen = false

    @Flag(help: "With --listen: accept connections on every network interface, not only loopback.")
    var listenAll = false

    @Option(help: "Seconds to wait for a connection to be made.", transform: Parse.seconds)
    var connectTimeout: Double = 10

    @Option(help: "Encodings in order of preference, e.g. zrle,copyrect (\(Encoding.knownNames)).", transform: Parse.encodings)
    var encodings: [Int32]?

    @Option(help: "Password file in vncpasswd format (TigerVNC/TightVNC). VNC_PASSWORD is used when absent.")
    var passwordFile: String?

    @Option(help: "Tight JPEG quality 0-9 (lossy); omit for lossless.", transform: Parse.level)
    var quality: Int?

    @Option(help: "Compression level 0-9.", transform: Parse.level)
    var compress: Int?

    @Option(help: "Threads that decode, 1-16; 1 decodes on the connection's thread alone. Default: the cores, at most 4 (snapshot: 1).",
            transform: Parse.decodeThreads)
    var decodeThreads: Int?

    @Option(help: "Pixel format to ask for: rgb888 (default), rgb565, bgr233, cmap8 (8 bpp colour map).")
    var pixelFormat: PixelFormatChoice?

    @Option(help: "Security types to accept, strongest first (vncviewer's SecurityTypes names): \(SecurityMethod.knownNames). Default: all, in that order. Only these are ever used.",
            transform: Parse.security)
    var security: [SecurityMethod]?

    @Option(help: "CA certificates (PEM) for the X509 security types; default: the system's store.")
    var x509Ca: String?

    @Flag(help: "Accept and remember a server certificate or RSA-AES key not seen before without asking, for a host never reached before (a changed one is still refused).")
    var trustNewCertificate = false

    @Option(help: "Known-hosts file for remembered certificates and keys (default ~/.config/farcast/known_hosts).")
    var knownHosts: String?

    @Flag(help: "After a successful login, save the password given or typed: in the desktop's Secret Service (GNOME Keyring, KWallet) when one runs, else in ~/.config/farcast/credentials (mode 0600, plain text like .netrc). Saved passwords are used when none is given, on their own only for a server whose certificate or key is checked (otherwise asked, filled in).")
    var savePassword = false

    @Flag(help: "Ask the server to disconnect other clients.")
    var exclusive = false

    @Flag(name: .shortAndLong, help: "Print progress to stderr.")
    var verbose = false

    func validate() throws {
        if listen, let h = host, Int(h).map({ (1...65535).contains($0) }) != true {
            throw ValidationError("--listen takes a port number (got '\(h)')")
        }
        if !listen {
            guard let text = host ?? (via != nil ? "localhost" : nil) else {
                throw ValidationError("give a server to connect to (e.g. localhost:1 or vnc://host), or --listen to wait for one")
            }
            do { _ = try ConnectionTarget.parse(text) } catch { throw ValidationError("\(error)") }
        }
        if let via {
            do { try SocketTransport.checkGateway(via) } catch { throw ValidationError("\(error)") }
        }
        if let ca = x509Ca, !FileManager.default.isReadableFile(atPath: ca) {
            throw ValidationError("cannot read --x509-ca file \(ca)")
        }
        if let f = passwordFile {
            guard FileManager.default.isReadableFile(atPath: f) else { throw ValidationError("cannot read password file \(f)") }
            guard passwordFromFile(f) != nil else { throw ValidationError("\(f) is not a vncpasswd file (8 bytes expected; make one with 'vncpasswd -f')") }
        }
    }

    /// What `validate` accepted: where to connect (or, with --listen, where to wait).
    var plan: ConnectionPlan {
        if listen {
            var p = ConnectionPlan(target: .tcp(HostSpec(host: "localhost", port: 5900)))
            p.sshCommand = ViewerEnvironment.sshCommand
            p.searchPath = ViewerEnvironment.searchPath
            p.listenPort = host.flatMap { Int($0) } ?? 5500
            p.listenOnAllInterfaces = listenAll
            return p
        }
        let parsed = try? ConnectionTarget.parse(host ?? "localhost")
        var p = ConnectionPlan(target: parsed?.target ?? .tcp(HostSpec(host: "localhost", port: 5900)), via: via)
        p.sshCommand = ViewerEnvironment.sshCommand
        p.searchPath = ViewerEnvironment.searchPath
        p.connectTimeout = connectTimeout
        return p
    }

    /// A user name from a vnc://user@host URI.
    var uriUsername: String? { host.flatMap { try? ConnectionTarget.parse($0).username } ?? nil }

    /// The password of a vncpasswd file: its first 8 bytes read (and zeroed after), decrypted
    /// into a Secret; nil when the file is shorter or cannot be read.
    func passwordFromFile(_ path: String) -> SharedSecret? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var block = [UInt8](repeating: 0, count: 8)
        defer { Secret.wipe(&block) }
        var got = 0
        while got < 8 {
            let n = block.withUnsafeMutableBytes { read(fd, $0.baseAddress.map { $0 + got }, 8 - got) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            got += n
        }
        guard got == 8 else { return nil }
        return SharedSecret(VNCAuth.decryptPasswordFile(block))
    }

    /// VNC_USERNAME / VNC_PASSWORD / --password-file / the URI's user name (no prompting).
    var givenCredentials: CredentialSources {
        let fromFile = passwordFile.flatMap { passwordFromFile($0) }
        var c = CredentialSources(username: ViewerEnvironment.variables["VNC_USERNAME"].flatMap { $0.isEmpty ? nil : $0 },
                                  password: fromFile ?? ProcessSecrets.vncPassword, prompt: false)
        c.username = c.username ?? uriUsername
        return c
    }

    var knownHostsFile: KnownHosts { KnownHosts(path: knownHosts ?? KnownHosts.defaultPath(env: ViewerEnvironment.variables)) }

    /// Given or saved credentials and known hosts, answered by the session itself; with
    /// --save-password, what was used is saved once the login succeeded.
    func answers() -> HandshakeAnswers {
        let env = ViewerEnvironment.variables
        let store = CredentialStores.preferred(filePath: CredentialStores.defaultFilePath(env: env),
                                               sessionBus: env["DBUS_SESSION_BUS_ADDRESS"], searchPath: ViewerEnvironment.searchPath)
        let recorder = CredentialRecorder(store: store, save: savePassword)
        var a = HandshakeAnswers.standard(given: givenCredentials, recorder: recorder,
                                          knownHosts: knownHostsFile, trustNew: trustNewCertificate)
        let remember = a.loggedIn
        a.loggedIn = { server, method, identity in
            remember(server, method, identity)
            if let saved = recorder.commit() { say(saved) }
        }
        return a
    }

    var settings: ClientSettings {
        var s = ClientSettings()
        if let encodings { s.encodings = encodings; s.encodingsNamedByUser = true }
        s.jpegQuality = quality
        s.compressLevel = compress
        s.decodeThreads = decodeThreads ?? Parse.defaultDecodeThreads
        s.pixelFormat = (pixelFormat ?? .rgb888).format
        s.shared = !exclusive
        if let security {
            // named by the user: exactly these, even weaker than this host used before
            s.securityMethods = security
            s.securityNamedByUser = true
        }
        // Host name for TLS host name checking and the known-hosts entry.
        switch plan.target {
        case .tcp(let spec): s.serverName = spec.host; s.serverPort = spec.port
        case .unix(let path): s.serverName = path
        }
        // through a gateway the same name may be another machine: the identity says which way
        if let via, !listen { s.identity = "\(s.serverDescription),via=\(via)" }
        s.x509CAFile = x509Ca
        return s
    }

    /// Progress lines on stderr with -v.
    var log: @Sendable (String) -> Void {
        if verbose { return { say($0) } }
        return { _ in }
    }
}
