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
        onTTY(prompt, echo: echo) { fd in
            var line = Secret(capacity: maxLine)
            guard readLine(fd, into: &line) else { return nil }
            return line.withBytes { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// A password from /dev/tty after writing `prompt`, not echoed, read into a Secret (never
    /// a String or a growing array, which would leave copies behind).
    public static func readSecret(_ prompt: String) -> Secret? {
        onTTY(prompt, echo: false) { fd in
            var line = Secret(capacity: maxLine)
            guard readLine(fd, into: &line) else { return nil }
            return line
        }
    }

    /// A line of at most 4 KiB: longer input is not a password anyone typed.
    static let maxLine = 4096

    /// `body` with /dev/tty open, `prompt` written, echo off unless `echo` (restored after).
    private static func onTTY<R: ~Copyable>(_ prompt: String, echo: Bool, _ body: (Int32) -> R?) -> R? {
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
        return body(fd)
    }

    /// Reads one line from `fd` into `line` (its own storage); false at the end of input
    /// before anything was read.
    private static func readLine(_ fd: Int32, into line: inout Secret) -> Bool {
        var c: UInt8 = 0
        defer { c = 0 }
        while line.count < line.capacity {
            let n = read(fd, &c, 1)
            if n <= 0 { return !line.isEmpty }
            if c == 10 || c == 13 { break }
            withUnsafeBytes(of: &c) { _ = line.append($0) }
        }
        return true
    }

    /// A password is saved for this server, and the channel does not prove who the server is
    /// (`CredentialRequest.authenticated`): whether to send it anyway.
    public static func askSendSaved(_ req: CredentialRequest) -> Bool {
        let msg = "\nA password is saved for \(req.server), but \(req.method) does not prove that this is that server "
            + "(no certificate or key checked), so it is not sent without asking.\nSend the saved password? (yes/no) "
        guard let a = readLine(msg, echo: true)?.lowercased() else { return false }
        return a == "yes" || a == "y"
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

/// A secret the process keeps on purpose, shared by reference: VNC_PASSWORD or a password file,
/// needed again for each reconnection. Its bytes exist once; each use gets a `copy()` that
/// zeroes itself when it goes.
public final class SharedSecret: Sendable {
    private let secret: Secret
    public init(_ s: consuming Secret) { secret = s }
    public func copy() -> Secret { secret.duplicate() }
}

/// Builds the engine's credential provider from what the user gave.
public struct CredentialSources: Sendable {
    /// VNC_USERNAME.
    public var username: String?
    /// From --password-file or VNC_PASSWORD.
    public var password: SharedSecret?
    /// Ask on the terminal for whatever is missing.
    public var prompt: Bool

    public init(username: String?, password: SharedSecret?, prompt: Bool) {
        self.username = username; self.password = password; self.prompt = prompt
    }

    /// The terminal's answer to what `answers` left open (`snapshot`, `record`): what the user
    /// gave when it is enough, a saved password when the user says to send it, else asked;
    /// nil when a piece is missing and prompting is off (the engine then says what to set).
    public var provider: CredentialProvider {
        let s = self
        return { req, saved in
            if let pw = s.password, !req.needsUsername || s.username != nil {
                return Credentials(username: s.username ?? "", password: pw.copy())
            }
            switch saved {
            case .some(let c):
                if s.prompt && TerminalPrompt.askSendSaved(req) { return c.duplicate() }
            case .none:
                break
            }
            var user = s.username
            if req.needsUsername && user == nil {
                guard s.prompt, let u = TerminalPrompt.readLine("User name for \(req.server) (\(req.method)): ", echo: true),
                      !u.isEmpty else { return nil }
                user = u
            }
            if let pw = s.password { return Credentials(username: user ?? "", password: pw.copy()) }
            guard s.prompt, let p = TerminalPrompt.readSecret("Password for \(req.needsUsername ? "\(user ?? "")@" : "")\(req.server): ")
            else { return nil }
            return Credentials(username: user ?? "", password: p)
        }
    }
}
