import Foundation
import RFB
#if canImport(Glibc)
import Glibc
#endif

/// Saved credentials (`--save-password`): the desktop's Secret Service (libsecret, through
/// Debian's `secret-tool`) where a session bus offers org.freedesktop.secrets, else a file only
/// the user can read. Nothing is saved unless asked. Passwords never go to argv, logs or errors.
public protocol CredentialStore: Sendable {
    /// Where the credentials go, for messages ("the Secret Service", a file path).
    var location: String { get }
    /// The saved credentials for `server` (host:port) and `username`; with `username` nil, the
    /// first entry saved for that server.
    func lookup(server: String, username: String?) -> Credentials?
    /// Saves, replacing an entry for the same server and user name.
    func save(server: String, credentials: Credentials) throws
}

public enum CredentialStores {
    /// $XDG_CONFIG_HOME/farcast/credentials, else ~/.config/farcast/credentials.
    public static var defaultFilePath: String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".config")
        return (base as NSString).appendingPathComponent("farcast/credentials")
    }

    /// The Secret Service when one runs on the session bus, else the file.
    public static func preferred(filePath: String = defaultFilePath) -> CredentialStore {
        if SecretServiceCredentialStore.available { return SecretServiceCredentialStore() }
        return FileCredentialStore(path: filePath)
    }
}

/// One line per entry: `host:port base64(user) base64(password)` (user `-` when there is none).
/// Plain text protected only by its permissions (0600, directory 0700), like ~/.netrc or
/// ~/.pgpass: base64 is an encoding, not encryption.
public final class FileCredentialStore: CredentialStore {
    public let path: String
    private static let lock = NSLock()
    public init(path: String = CredentialStores.defaultFilePath) { self.path = path }
    public var location: String { path }

    static let header = "# Farcast saved credentials (--save-password): host:port base64(user) base64(password).\n# Plain text protected only by this file's permissions (0600), like .netrc or .pgpass.\n"

    struct Entry { var server: String; var user: String; var password: [UInt8] }

    static func encode(_ e: Entry) -> String {
        let u = e.user.isEmpty ? "-" : Data(e.user.utf8).base64EncodedString()
        return "\(e.server) \(u) \(Data(e.password).base64EncodedString())"
    }

    func entries() -> [Entry] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        var out: [Entry] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: " ")
            guard f.count == 3, let pw = Data(base64Encoded: String(f[2])) else { continue }
            let user: String
            if f[1] == "-" { user = "" } else {
                guard let u = Data(base64Encoded: String(f[1])) else { continue }
                user = String(decoding: u, as: UTF8.self)
            }
            out.append(Entry(server: String(f[0]), user: user, password: [UInt8](pw)))
        }
        return out
    }

    public func lookup(server: String, username: String?) -> Credentials? {
        FileCredentialStore.lock.withLock {
            entries().first { $0.server == server && (username == nil || $0.user == username) }
                .map { Credentials(username: $0.user, password: $0.password) }
        }
    }

    public func save(server: String, credentials c: Credentials) throws {
        guard !server.contains(" "), !server.contains("\n") else { throw ProtocolError("cannot save credentials for '\(server)'") }
        try FileCredentialStore.lock.withLock {
            var all = entries().filter { !($0.server == server && $0.user == c.username) }
            all.append(Entry(server: server, user: c.username, password: c.password))
            let text = FileCredentialStore.header + all.map { FileCredentialStore.encode($0) + "\n" }.joined()
            try PrivateFile.replace(path, with: text)
        }
    }
}

/// The freedesktop Secret Service (GNOME Keyring, KWallet, KeePassXC) through `secret-tool`
/// (libsecret-tools): attributes application=farcast server=host:port user=NAME; the password
/// goes on stdin and comes back on stdout, never in argv.
public final class SecretServiceCredentialStore: CredentialStore {
    public init() {}
    public var location: String { "the Secret Service" }

    static func which(_ tool: String) -> String? {
        for d in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(d)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// A session bus that has (or can start) org.freedesktop.secrets, and secret-tool.
    public static var available: Bool {
        guard let bus = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"], !bus.isEmpty,
              which("secret-tool") != nil, which("dbus-send") != nil else { return false }
        for method in ["ListNames", "ListActivatableNames"] {
            if let r = run("dbus-send", ["--session", "--print-reply", "--reply-timeout=3000", "--dest=org.freedesktop.DBus",
                                         "/org/freedesktop/DBus", "org.freedesktop.DBus.\(method)"]),
               r.status == 0, String(decoding: r.out, as: UTF8.self).contains("\"org.freedesktop.secrets\"") {
                return true
            }
        }
        return false
    }

    /// Runs a tool with `input` on stdin; nil when it cannot start. Its stderr is discarded
    /// (it never holds the password, but it is not ours to show either).
    static func run(_ tool: String, _ args: [String], input: [UInt8] = []) -> (status: Int32, out: [UInt8])? {
        guard let path = which(tool) else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let inp = Pipe(), out = Pipe()
        p.standardInput = inp; p.standardOutput = out
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        do { try p.run() } catch { return nil }
        try? inp.fileHandleForWriting.write(contentsOf: Data(input))
        try? inp.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, [UInt8](o))
    }

    func attributes(_ server: String, _ user: String?) -> [String] {
        var a = ["application", "farcast", "server", server]
        if let user { a += ["user", user] }
        return a
    }

    public func lookup(server: String, username: String?) -> Credentials? {
        var user = username
        if user == nil {
            // The user name saved for this server: secret-tool search lists it as attribute.user.
            guard let r = SecretServiceCredentialStore.run("secret-tool", ["search"] + attributes(server, nil)), r.status == 0 else { return nil }
            let text = String(decoding: r.out, as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("attribute.user = ") {
                user = String(line.dropFirst("attribute.user = ".count)); break
            }
            guard user != nil else { return nil }
        }
        guard let r = SecretServiceCredentialStore.run("secret-tool", ["lookup"] + attributes(server, user)),
              r.status == 0, !r.out.isEmpty else { return nil }
        return Credentials(username: user ?? "", password: r.out)
    }

    public func save(server: String, credentials c: Credentials) throws {
        let label = c.username.isEmpty ? "Farcast VNC password for \(server)" : "Farcast VNC password for \(c.username)@\(server)"
        guard let r = SecretServiceCredentialStore.run("secret-tool", ["store", "--label=\(label)"] + attributes(server, c.username),
                                                       input: c.password), r.status == 0 else {
            throw ProtocolError("cannot save the password in the Secret Service (secret-tool store failed)")
        }
    }
}

/// Between the engine and the user's sources: credentials the user gave or typed are noted (to
/// be saved with `commit()` once authentication succeeded, when saving was asked); when the user
/// gave none, saved ones are looked up before anyone is asked.
public final class CredentialRecorder: @unchecked Sendable {
    public let store: CredentialStore?
    public let saveRequested: Bool
    private let lock = NSLock()
    private var pending: (server: String, credentials: Credentials)? = nil
    private var committed = false

    /// `store` nil: nothing is looked up or saved.
    public init(store: CredentialStore?, save: Bool) { self.store = store; self.saveRequested = save }

    /// `given`: what the user gave without being asked (environment, password file, URI user name).
    /// `ask`: the prompt for what is missing (terminal or window); its answer is noted too.
    public func provider(given: CredentialSources, ask: @escaping CredentialProvider) -> CredentialProvider {
        { [self] req in
            if let pw = given.password, !req.needsUsername || given.username != nil {
                let c = Credentials(username: req.needsUsername ? given.username ?? "" : "", password: pw)
                note(key(req), c)
                return c
            }
            if given.password == nil, let store {
                let user = req.needsUsername ? given.username : ""
                // saved from an encrypted login: only for encrypted ones; saved from an
                // unencrypted one (it was sent in clear before): for either
                if req.protected, let c = store.lookup(server: req.server, username: user) { return c }
                if let c = store.lookup(server: CredentialRecorder.clearKey(req.server), username: user) { return c }
            }
            guard let c = ask(req) else { return nil }
            note(key(req), Credentials(username: req.needsUsername ? c.username : "", password: c.password))
            return c
        }
    }

    /// Credentials the user typed at a prompt, noted like `provider`'s `ask` answers.
    public func noteTyped(_ req: CredentialRequest, _ c: Credentials) {
        note(key(req), Credentials(username: req.needsUsername ? c.username : "", password: c.password))
    }

    /// Where credentials used over an unencrypted method are saved: apart from the others, so
    /// they are never offered to a method that would send them in clear unless saved that way.
    static func clearKey(_ server: String) -> String { server + clearSuffix }
    static let clearSuffix = "#unencrypted"

    private func key(_ req: CredentialRequest) -> String { req.protected ? req.server : CredentialRecorder.clearKey(req.server) }

    private func note(_ server: String, _ c: Credentials) {
        lock.withLock { pending = (server, c) }
    }

    /// After a successful authentication: saves what the user gave, when asked to, once.
    /// Returns a line for the user (where it went, or why it could not), nil when nothing to do.
    @discardableResult
    public func commit() -> String? {
        guard saveRequested, let store else { return nil }
        let p: (server: String, credentials: Credentials)? = lock.withLock {
            if committed { return nil }
            committed = true
            return pending
        }
        guard let p else { return nil }
        do {
            try store.save(server: p.server, credentials: p.credentials)
            let server = p.server.hasSuffix(CredentialRecorder.clearSuffix) ? String(p.server.dropLast(CredentialRecorder.clearSuffix.count)) : p.server
            return "saved the password for \(p.credentials.username.isEmpty ? "" : "\(p.credentials.username)@")\(server) in \(store.location)"
        } catch {
            return "\(error)"
        }
    }
}
