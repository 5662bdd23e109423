import CSystem
import Foundation
import RFB
#if canImport(Glibc)
import Glibc
#endif

/// Credentials and trust decisions for the command line: environment, password file, and a
/// terminal prompt when stdin is a terminal. Passwords never go to argv, logs or errors.
public enum TerminalPrompt {
    /// True when we may ask on the terminal (stdin is one, and /dev/tty opens).
    public static var available: Bool { isatty(0) == 1 }

    /// Reads one line from /dev/tty after writing `prompt` to it; with `echo` false the typed
    /// characters are not shown (terminal echo off, restored afterwards). nil at end of input.
    public static func readLine(_ prompt: String, echo: Bool) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        var saved = termios()
        let haveTermios = tcgetattr(fd, &saved) == 0
        if !echo && haveTermios {
            var t = saved
            t.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(fd, TCSAFLUSH, &t)
        }
        defer {
            if !echo && haveTermios {
                tcsetattr(fd, TCSAFLUSH, &saved)
                _ = write(fd, "\n", 1)
            }
        }
        var bytes: [UInt8] = []
        var c: UInt8 = 0
        // A line of at most 4 KiB: longer input is not a password anyone typed.
        while bytes.count < 4096 {
            let n = read(fd, &c, 1)
            if n <= 0 { if bytes.isEmpty { return nil }; break }
            if c == 10 || c == 13 { break }
            bytes.append(c)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Shows an unverified identity and asks whether to trust it.
    public static func askTrust(_ id: ServerIdentity) -> Bool {
        let what = id.kind == .x509 ? "certificate" : "RSA-AES server key"
        var msg = "\nThe \(what) of \(id.server) is not verified"
        if let e = id.verifyError { msg += " (\(e))" }
        msg += ".\n"
        if let s = id.subject { msg += "  Subject: \(s)\n" }
        msg += "  \(id.kind == .x509 ? "SHA-256 fingerprint" : "Fingerprint"): \(id.displayFingerprint)\n"
        msg += "Compare it with the server's. Trust it and remember it? (yes/no) "
        guard let a = readLine(msg, echo: true)?.lowercased() else { return false }
        return a == "yes" || a == "y"
    }
}

/// Secrets the process was started with, taken once and kept out of reach of others.
public enum ProcessSecrets {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var password: [UInt8]?
    nonisolated(unsafe) private static var taken = false

    /// First thing in `main`: no core dumps (a password in memory must not land in a core
    /// file), and VNC_PASSWORD read and removed from the environment, so no child process
    /// (ssh for --via, secret-tool) inherits it.
    public static func secureProcess() {
        _ = farcast_forbid_core_dumps()
        lock.withLock {
            if taken { return }
            taken = true
            if let v = getenv("VNC_PASSWORD") { password = Array(String(cString: v).utf8) }
            unsetenv("VNC_PASSWORD")
        }
    }

    /// VNC_PASSWORD: as taken by `secureProcess`, else (a library user that never called it)
    /// from the environment.
    public static var vncPassword: [UInt8]? {
        lock.withLock { taken ? password : ProcessInfo.processInfo.environment["VNC_PASSWORD"].map { Array($0.utf8) } }
    }
}

/// Builds the engine's credential provider from what the user gave.
public struct CredentialSources: Sendable {
    /// VNC_USERNAME.
    public var username: String?
    /// From --password-file or VNC_PASSWORD.
    public var password: [UInt8]?
    /// Ask on the terminal for whatever is missing.
    public var prompt: Bool

    public init(username: String?, password: [UInt8]?, prompt: Bool) {
        self.username = username; self.password = password; self.prompt = prompt
    }

    /// From the environment (VNC_USERNAME, VNC_PASSWORD) unless a password file gave the password.
    public static func fromEnvironment(passwordFromFile: [UInt8]?, prompt: Bool = TerminalPrompt.available) -> CredentialSources {
        let env = ProcessInfo.processInfo.environment
        let user = env["VNC_USERNAME"].flatMap { $0.isEmpty ? nil : $0 }
        let pw = passwordFromFile ?? ProcessSecrets.vncPassword
        return CredentialSources(username: user, password: pw, prompt: prompt)
    }

    /// What the user gave when it is enough for `req`, else what `ask` returns (a prompt in the
    /// viewer window; `ask` gets the user name already known, to pre-fill). No terminal prompt.
    public func provider(asking ask: @escaping @Sendable (CredentialRequest, _ knownUsername: String?) -> Credentials?) -> CredentialProvider {
        let s = self
        return { req in
            if let pw = s.password, !req.needsUsername || s.username != nil {
                return Credentials(username: s.username ?? "", password: pw)
            }
            return ask(req, s.username)
        }
    }

    /// nil when a piece is missing and prompting is off: the engine then says what to set.
    public var provider: CredentialProvider {
        let s = self
        return { req in
            var user = s.username
            var pw = s.password
            if req.needsUsername && user == nil {
                guard s.prompt, let u = TerminalPrompt.readLine("User name for \(req.server) (\(req.method)): ", echo: true),
                      !u.isEmpty else { return nil }
                user = u
            }
            if pw == nil {
                guard s.prompt, let p = TerminalPrompt.readLine("Password for \(req.needsUsername ? "\(user ?? "")@" : "")\(req.server): ", echo: false)
                else { return nil }
                pw = Array(p.utf8)
            }
            guard let pw else { return nil }
            return Credentials(username: user ?? "", password: pw)
        }
    }
}
