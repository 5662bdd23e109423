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
    func save(server: String, credentials: borrowing Credentials) throws
}

public enum CredentialStores {
    /// $XDG_CONFIG_HOME/farcast/credentials, else ~/.config/farcast/credentials (`env`: the
    /// command line's environment).
    public static func defaultFilePath(env: [String: String]) -> String {
        let base = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".config")
        return (base as NSString).appendingPathComponent("farcast/credentials")
    }

    /// The Secret Service when one runs on the session bus (`sessionBus`:
    /// DBUS_SESSION_BUS_ADDRESS; its tools looked for on `searchPath`), else the file.
    public static func preferred(filePath: String, sessionBus: String?, searchPath: String) -> CredentialStore {
        if SecretServiceCredentialStore.available(sessionBus: sessionBus, searchPath: searchPath) {
            return SecretServiceCredentialStore(searchPath: searchPath)
        }
        return FileCredentialStore(path: filePath)
    }
}

/// One line per entry: `host:port base64(user) base64(password)` (user `-` when there is none).
/// Plain text protected only by its permissions (0600, directory 0700), like ~/.netrc or
/// ~/.pgpass: base64 is an encoding, not encryption. The file holds every saved password, so it
/// is read into a `Secret`, parsed there, and written from one: no String or Data of it is left
/// behind in memory.
public final class FileCredentialStore: CredentialStore {
    public let path: String
    private static let lock = NSLock()
    /// The whole file, read into one Secret: far more than anyone's saved passwords.
    static let maxFileBytes = 1 << 20
    public init(path: String) { self.path = path }
    public var location: String { path }

    static let header = "# Farcast saved credentials (--save-password): host:port base64(user) base64(password).\n# Plain text protected only by this file's permissions (0600), like .netrc or .pgpass.\n"

    /// One entry's fields, as ranges of the file's bytes.
    struct Entry { var server: String; var user: String; var line: Range<Int>; var password: Range<Int> }

    /// The file's bytes; nil when there is none (or it cannot be read, or is too large).
    func read() -> Secret? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) <= FileCredentialStore.maxFileBytes else { return nil }
        var text = Secret(capacity: Int(st.st_size))
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { Secret.wipe(&chunk) }
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            guard chunk.withUnsafeBytes({ text.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) else { return nil }
        }
        return text
    }

    /// The entries of `text` (lines starting with `#` and malformed lines are skipped).
    static func entries(_ text: borrowing Secret) -> [Entry] {
        text.withBytes { b in
            var out: [Entry] = []
            var start = 0
            while start < b.count {
                var end = start
                while end < b.count && b[end] != 10 { end += 1 }
                defer { start = end + 1 }
                guard end > start, b[start] != UInt8(ascii: "#") else { continue }
                var fields: [Range<Int>] = []
                var f = start
                for i in start...end where i == end || b[i] == UInt8(ascii: " ") {
                    if i > f { fields.append(f..<i) }
                    f = i + 1
                }
                guard fields.count == 3 else { continue }
                let server = String(decoding: UnsafeRawBufferPointer(rebasing: b[fields[0]]), as: UTF8.self)
                let userField = UnsafeRawBufferPointer(rebasing: b[fields[1]])
                let user: String
                if userField.count == 1 && userField[0] == UInt8(ascii: "-") { user = "" } else {
                    guard let u = Data(base64Encoded: Data(userField)) else { continue }
                    user = String(decoding: u, as: UTF8.self)
                }
                out.append(Entry(server: server, user: user, line: start..<end, password: fields[2]))
            }
            return out
        }
    }

    public func lookup(server: String, username: String?) -> Credentials? {
        FileCredentialStore.lock.lock()
        defer { FileCredentialStore.lock.unlock() }
        guard let text = read() else { return nil }
        guard let e = FileCredentialStore.entries(text).first(where: { $0.server == server && (username == nil || $0.user == username) }) else { return nil }
        guard let pw = text.withBytes({ Base64.decode(UnsafeRawBufferPointer(rebasing: $0[e.password])) }) else { return nil }
        return Credentials(username: e.user, password: pw)
    }

    public func save(server: String, credentials c: borrowing Credentials) throws {
        guard !server.contains(" "), !server.contains("\n") else { throw ProtocolError("cannot save credentials for '\(server)'") }
        let user = c.username.isEmpty ? "-" : Data(c.username.utf8).base64EncodedString()
        FileCredentialStore.lock.lock()
        defer { FileCredentialStore.lock.unlock() }
        do {
            let old = read() ?? Secret(capacity: 0)
            let keep = FileCredentialStore.entries(old).filter { !($0.server == server && $0.user == c.username) }
            let header = Array(FileCredentialStore.header.utf8)
            let head = Array("\(server) \(user) ".utf8)
            var out = Secret(capacity: header.count + old.count + head.count + Base64.encodedCount(c.password.count) + 2 * (keep.count + 1))
            header.withUnsafeBytes { _ = out.append($0) }
            old.withBytes { b in
                for e in keep {
                    _ = out.append(UnsafeRawBufferPointer(rebasing: b[e.line]))
                    _ = out.append(byte: 10)
                }
            }
            head.withUnsafeBytes { _ = out.append($0) }
            c.password.withBytes { Base64.encode($0, into: &out) }
            _ = out.append(byte: 10)
            try out.withBytes { try PrivateFile.replace(path, with: $0) }
        }
    }
}

/// Base64 (RFC 4648, with padding) between raw bytes and Secrets, so a password never passes
/// through a String or a Data on its way to or from the credentials file.
enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encodedCount(_ n: Int) -> Int { (n + 2) / 3 * 4 }

    static func encode(_ src: UnsafeRawBufferPointer, into out: inout Secret) {
        var i = 0
        var quad: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        defer { quad = (0, 0, 0, 0) }
        while i < src.count {
            let b0 = src[i], b1 = i + 1 < src.count ? src[i + 1] : 0, b2 = i + 2 < src.count ? src[i + 2] : 0
            quad = (alphabet[Int(b0 >> 2)], alphabet[Int((b0 & 3) << 4 | b1 >> 4)],
                    i + 1 < src.count ? alphabet[Int((b1 & 15) << 2 | b2 >> 6)] : UInt8(ascii: "="),
                    i + 2 < src.count ? alphabet[Int(b2 & 63)] : UInt8(ascii: "="))
            withUnsafeBytes(of: &quad) { _ = out.append($0) }
            i += 3
        }
    }

    /// nil when `src` is not base64.
    static func decode(_ src: UnsafeRawBufferPointer) -> Secret? {
        guard src.count % 4 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): return 62
            case UInt8(ascii: "/"): return 63
            default: return nil
            }
        }
        var out = Secret(capacity: src.count / 4 * 3)
        var i = 0
        var triple: (UInt8, UInt8, UInt8) = (0, 0, 0)
        defer { triple = (0, 0, 0) }
        while i < src.count {
            let pad = (src[i + 2] == UInt8(ascii: "=") ? 1 : 0) + (src[i + 3] == UInt8(ascii: "=") ? 1 : 0)
            guard pad == 0 || i + 4 == src.count, pad < 2 || src[i + 2] == UInt8(ascii: "="),
                  let a = value(src[i]), let b = value(src[i + 1]) else { return nil }
            let c = pad >= 2 ? 0 : value(src[i + 2]), d = pad >= 1 ? 0 : value(src[i + 3])
            guard let c, let d else { return nil }
            triple = (a << 2 | b >> 4, (b & 15) << 4 | c >> 2, (c & 3) << 6 | d)
            withUnsafeBytes(of: &triple) { _ = out.append(UnsafeRawBufferPointer(rebasing: $0[0..<(3 - pad)])) }
            i += 4
        }
        return out
    }
}

/// The freedesktop Secret Service (GNOME Keyring, KWallet, KeePassXC) through `secret-tool`
/// (libsecret-tools): attributes application=farcast server=host:port user=NAME; the password
/// goes on stdin and comes back on stdout, never in argv, read straight into a Secret.
public final class SecretServiceCredentialStore: CredentialStore {
    /// Where secret-tool is looked for (the command line's PATH).
    let searchPath: String
    public init(searchPath: String) { self.searchPath = searchPath }
    public var location: String { "the Secret Service" }

    /// A session bus (`sessionBus`: its address, DBUS_SESSION_BUS_ADDRESS) that has (or can
    /// start) org.freedesktop.secrets, and secret-tool. The tools inherit our environment.
    public static func available(sessionBus: String?, searchPath: String) -> Bool {
        guard let bus = sessionBus, !bus.isEmpty,
              ChildProcess.find("secret-tool", searchPath: searchPath) != nil,
              ChildProcess.find("dbus-send", searchPath: searchPath) != nil else { return false }
        for method in ["ListNames", "ListActivatableNames"] {
            if let r = run("dbus-send", searchPath: searchPath, ["--session", "--print-reply", "--reply-timeout=3000", "--dest=org.freedesktop.DBus",
                                         "/org/freedesktop/DBus", "org.freedesktop.DBus.\(method)"]),
               r.status == 0, String(decoding: r.out, as: UTF8.self).contains("\"org.freedesktop.secrets\"") {
                return true
            }
        }
        return false
    }

    /// Runs a tool whose output holds no secret; nil when it cannot start.
    static func run(_ tool: String, searchPath: String, _ args: [String]) -> (status: Int32, out: [UInt8])? {
        guard let r = runSecret(tool, searchPath: searchPath, args) else { return nil }
        return (r.status, r.out.withBytes { Array($0) })
    }

    /// A tool's exit status and its output, which may hold a secret.
    struct ToolOutput: ~Copyable { var status: Int32; var out: Secret }

    /// Runs a tool with `input` on stdin, its stdout read into a Secret (at most
    /// `Secret.maxBytes`); nil when it cannot start. Its stderr is discarded (it never holds the
    /// password, but it is not ours to show either). No timeout: the keyring may ask the user
    /// to unlock it.
    static func runSecret(_ tool: String, searchPath: String, _ args: [String], input: UnsafeRawBufferPointer? = nil) -> ToolOutput? {
        guard let path = ChildProcess.find(tool, searchPath: searchPath) else { return nil }
        var text = Secret(capacity: Secret.maxBytes)
        guard let o = ChildProcess.run(path, args, input: input, maxOutput: Secret.maxBytes, output: { _ = text.append($0) }),
              let status = o.status else { return nil }
        return ToolOutput(status: status, out: text)
    }

    func attributes(_ server: String, _ user: String?) -> [String] {
        var a = ["application", "farcast", "server", server]
        if let user { a += ["user", user] }
        return a
    }

    /// The user name saved for `server`: `secret-tool search` lists it as attribute.user (its
    /// output holds the secret too, so it is read as one and only that line is taken out).
    func savedUser(server: String) -> String? {
        guard let r = SecretServiceCredentialStore.runSecret("secret-tool", searchPath: searchPath, ["search"] + attributes(server, nil)), r.status == 0 else { return nil }
        let prefix = Array("attribute.user = ".utf8)
        return r.out.withBytes { b -> String? in
            var start = 0
            while start < b.count {
                var end = start
                while end < b.count && b[end] != 10 { end += 1 }
                if end - start >= prefix.count && prefix.indices.allSatisfy({ b[start + $0] == prefix[$0] }) {
                    return String(decoding: UnsafeRawBufferPointer(rebasing: b[(start + prefix.count)..<end]), as: UTF8.self)
                }
                start = end + 1
            }
            return nil
        }
    }

    public func lookup(server: String, username: String?) -> Credentials? {
        guard let user = username ?? savedUser(server: server) else { return nil }
        guard let r = SecretServiceCredentialStore.runSecret("secret-tool", searchPath: searchPath, ["lookup"] + attributes(server, user)),
              r.status == 0, !r.out.isEmpty else { return nil }
        return Credentials(username: user, password: r.out)
    }

    public func save(server: String, credentials c: borrowing Credentials) throws {
        let label = c.username.isEmpty ? "Farcast VNC password for \(server)" : "Farcast VNC password for \(c.username)@\(server)"
        let args = ["store", "--label=\(label)"] + attributes(server, c.username)
        guard let r = c.password.withBytes({ SecretServiceCredentialStore.runSecret("secret-tool", searchPath: searchPath, args, input: $0) }), r.status == 0 else {
            throw ProtocolError("cannot save the password in the Secret Service (secret-tool store failed)")
        }
    }
}

/// Between the engine and the user's sources: credentials the user gave or typed are noted (to
/// be saved with `commit()` once authentication succeeded) only when saving was asked; when the
/// user gave none, saved ones are looked up before anyone is asked, and sent on their own only
/// where the saved secret is no more exposed than it was when saved: one saved from an
/// encrypted login only to a server whose identity is checked (`CredentialRequest.authenticated`);
/// otherwise the user is asked, with it filled in.
public final class CredentialRecorder: @unchecked Sendable {
    public let store: CredentialStore?
    public let saveRequested: Bool
    private let lock = NSLock()
    private struct Pending: ~Copyable { var server: String; var credentials: Credentials }
    private var pending: Pending?
    private var committed = false

    /// `store` nil: nothing is looked up or saved.
    public init(store: CredentialStore?, save: Bool) { self.store = store; self.saveRequested = save }

    /// The session's own answer to a request, from what the user gave without being asked
    /// (environment, password file, URI user name) and what is saved.
    public func answer(given: CredentialSources) -> @Sendable (CredentialRequest) -> CredentialAnswer {
        { [self] req in
            if let pw = given.password, !req.needsUsername || given.username != nil {
                let c = Credentials(username: req.needsUsername ? given.username ?? "" : "", password: pw.copy())
                noteTyped(req, c)
                return .use(c)
            }
            guard given.password == nil, let store else { return .ask(prefill: nil) }
            let user = req.needsUsername ? given.username : ""
            // saved from an encrypted login: on its own only to a server whose identity is checked
            if req.protected, let c = store.lookup(server: req.server, username: user) {
                return req.authenticated ? .use(c) : .ask(prefill: c)
            }
            // saved from an unencrypted login (it went in clear before, to whoever answered): for either
            if let c = store.lookup(server: CredentialRecorder.clearKey(req.server), username: user) { return .use(c) }
            return .ask(prefill: nil)
        }
    }

    /// Credentials the user gave or typed for `req`: kept (a copy) until `commit()` only when
    /// saving was asked; otherwise nothing of them is kept.
    public func noteTyped(_ req: CredentialRequest, _ c: borrowing Credentials) {
        guard saveRequested, store != nil else { return }
        let p = Pending(server: key(req), credentials: Credentials(username: req.needsUsername ? c.username : "", password: c.password.duplicate()))
        lock.lock()
        pending = consume p
        lock.unlock()
    }

    /// Where credentials used over an unencrypted method are saved: apart from the others, so
    /// they are never offered to a method that would send them in clear unless saved that way.
    static func clearKey(_ server: String) -> String { server + clearSuffix }
    static let clearSuffix = "#unencrypted"

    private func key(_ req: CredentialRequest) -> String { req.protected ? req.server : CredentialRecorder.clearKey(req.server) }

    /// After a successful authentication: saves what the user gave, when asked to, once, and
    /// drops it. Returns a line for the user (where it went, or why it could not), nil when
    /// nothing to do.
    @discardableResult
    public func commit() -> String? {
        guard saveRequested, let store else { return nil }
        lock.lock()
        let p: Pending? = committed ? nil : pending.take()
        committed = true
        lock.unlock()
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
