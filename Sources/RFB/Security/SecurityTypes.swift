import Foundation

/// Security type numbers, vncviewer's SecurityTypes names, and what the engine asks through its
/// events: credentials, and a decision on a server identity it cannot verify.

public enum SecurityType {
    public static let invalid: UInt8 = 0
    public static let none: UInt8 = 1
    public static let vncAuth: UInt8 = 2
    public static func name(_ t: UInt8) -> String {
        switch t {
        case 1: return "None"
        case 2: return "VncAuth"
        case 5: return "RA2"
        case 6: return "RA2ne"
        case 16: return "Tight"
        case 18: return "TLS"
        case 19: return "VeNCrypt"
        case 30: return "Apple Remote Desktop"
        case 129: return "RA2_256"
        case 130: return "RA2ne_256"
        default: return "type \(t)"
        }
    }
}


extension SecurityType {
    public static let ra2: UInt8 = 5
    public static let ra2ne: UInt8 = 6
    public static let veNCrypt: UInt8 = 19
    public static let appleRemoteDesktop: UInt8 = 30
    public static let ra2_256: UInt8 = 129
    public static let ra2ne_256: UInt8 = 130
}

/// VeNCrypt subtypes (u32 on the wire).
public enum VeNCryptSubtype {
    public static let plain: UInt32 = 256
    public static let tlsNone: UInt32 = 257
    public static let tlsVnc: UInt32 = 258
    public static let tlsPlain: UInt32 = 259
    public static let x509None: UInt32 = 260
    public static let x509Vnc: UInt32 = 261
    public static let x509Plain: UInt32 = 262

    public static func name(_ s: UInt32) -> String {
        switch s {
        case plain: return "Plain"
        case tlsNone: return "TLSNone"
        case tlsVnc: return "TLSVnc"
        case tlsPlain: return "TLSPlain"
        case x509None: return "X509None"
        case x509Vnc: return "X509Vnc"
        case x509Plain: return "X509Plain"
        case 2: return "VncAuth"    // some servers list the plain RFB types as subtypes too
        case 1: return "None"
        default: return "subtype \(s)"
        }
    }
    static func usesTLS(_ s: UInt32) -> Bool { (tlsNone...x509Plain).contains(s) }
    static func usesX509(_ s: UInt32) -> Bool { (x509None...x509Plain).contains(s) }
    /// What runs inside (or instead of) the TLS tunnel.
    enum Inner { case none, vnc, plain }
    static func inner(_ s: UInt32) -> Inner? {
        switch s {
        case tlsNone, x509None, 1: return Inner.none
        case tlsVnc, x509Vnc, 2: return .vnc
        case plain, tlsPlain, x509Plain: return .plain
        default: return nil
        }
    }
}

/// The user's ordered choice of security methods, as vncviewer's SecurityTypes parameter.
public enum SecurityMethod: Equatable, Sendable {
    case type(UInt8)
    case veNCrypt(UInt32)

    /// Strongest first, as TigerVNC's vncviewer orders its default (plus ARD and the RA2 types it
    /// supports): certificate-checked TLS, then RSA-AES, anonymous TLS, then the unencrypted ones.
    /// VeNCrypt Plain (a password in clear text) is left out, as TigerVNC does: a man in the
    /// middle offering only it would get the password. It is used only when named.
    public static let defaultOrder: [SecurityMethod] = [
        .veNCrypt(VeNCryptSubtype.x509Plain), .veNCrypt(VeNCryptSubtype.x509Vnc), .veNCrypt(VeNCryptSubtype.x509None),
        .type(SecurityType.ra2_256), .type(SecurityType.ra2),
        .veNCrypt(VeNCryptSubtype.tlsPlain), .veNCrypt(VeNCryptSubtype.tlsVnc), .veNCrypt(VeNCryptSubtype.tlsNone),
        .type(SecurityType.ra2ne_256), .type(SecurityType.ra2ne),
        .type(SecurityType.appleRemoteDesktop),
        .type(SecurityType.vncAuth), .type(SecurityType.none),
    ]

    /// Every method that can be named, strongest first (the default order plus Plain).
    public static let all: [SecurityMethod] = defaultOrder.dropLast(2) + [.veNCrypt(VeNCryptSubtype.plain)] + defaultOrder.suffix(2)

    static let names: [(String, SecurityMethod)] = [
        ("none", .type(SecurityType.none)), ("vncauth", .type(SecurityType.vncAuth)), ("vnc", .type(SecurityType.vncAuth)),
        ("plain", .veNCrypt(VeNCryptSubtype.plain)),
        ("tlsnone", .veNCrypt(VeNCryptSubtype.tlsNone)), ("tlsvnc", .veNCrypt(VeNCryptSubtype.tlsVnc)),
        ("tlsplain", .veNCrypt(VeNCryptSubtype.tlsPlain)), ("x509none", .veNCrypt(VeNCryptSubtype.x509None)),
        ("x509vnc", .veNCrypt(VeNCryptSubtype.x509Vnc)), ("x509plain", .veNCrypt(VeNCryptSubtype.x509Plain)),
        ("ra2", .type(SecurityType.ra2)), ("ra2ne", .type(SecurityType.ra2ne)),
        ("ra2_256", .type(SecurityType.ra2_256)), ("ra2ne_256", .type(SecurityType.ra2ne_256)),
        ("ard", .type(SecurityType.appleRemoteDesktop)), ("dh", .type(SecurityType.appleRemoteDesktop)),
    ]

    /// Every method's name, strongest first ("X509Plain, X509Vnc, …"), for messages and help.
    public static var knownNames: String { all.map(\.listName).joined(separator: ", ") }

    /// The name as lists of security types spell it (vncviewer's; "ARD" for Apple's).
    public var listName: String { self == .type(SecurityType.appleRemoteDesktop) ? "ARD" : name }

    /// Parses a comma-separated list of vncviewer SecurityTypes names (case-insensitive).
    public static func parseList(_ list: String) throws -> [SecurityMethod] {
        var out: [SecurityMethod] = []
        for raw in list.split(separator: ",") {
            let n = raw.trimmingCharacters(in: .whitespaces).lowercased()
            guard let m = names.first(where: { $0.0 == n })?.1 else {
                throw ConfigError("unknown security type '\(n)'; known: \(knownNames)")
            }
            if !out.contains(m) { out.append(m) }
        }
        guard !out.isEmpty else { throw ConfigError("empty security type list") }
        return out
    }

    /// Whether the whole session (not only the password) is encrypted.
    public var isEncrypted: Bool {
        switch self {
        case .veNCrypt(let s): return VeNCryptSubtype.usesTLS(s)
        case .type(let t): return [SecurityType.ra2, SecurityType.ra2_256, SecurityType.ra2ne, SecurityType.ra2ne_256].contains(t)
        }
    }

    public var name: String {
        switch self {
        case .type(let t): return SecurityType.name(t)
        case .veNCrypt(let s): return VeNCryptSubtype.name(s)
        }
    }
}

/// How much a security method protects, weakest first: a host once reached with one level is not
/// accepted at a lower one without the user's say (a downgrade may be a man in the middle).
public enum SecurityStrength: Int, Comparable, Sendable {
    /// Nothing encrypted (None, VncAuth, Plain).
    case open = 0
    /// Encrypted, but to a server nobody vouches for (anonymous TLS, ARD's anonymous DH).
    case anonymousEncryption = 1
    /// The login encrypted to a pinned RSA key, the session in clear (RA2ne, RA2ne_256).
    case pinnedLogin = 2
    /// The session encrypted to a verified certificate or a pinned key (X509*, RA2, RA2_256).
    case authenticatedEncryption = 3
    public static func < (a: SecurityStrength, b: SecurityStrength) -> Bool { a.rawValue < b.rawValue }
}

extension SecurityMethod {
    public var strength: SecurityStrength {
        switch self {
        case .veNCrypt(let s):
            if VeNCryptSubtype.usesX509(s) { return .authenticatedEncryption }
            return VeNCryptSubtype.usesTLS(s) ? .anonymousEncryption : .open
        case .type(let t):
            switch t {
            case SecurityType.ra2, SecurityType.ra2_256: return .authenticatedEncryption
            case SecurityType.ra2ne, SecurityType.ra2ne_256: return .pinnedLogin
            case SecurityType.appleRemoteDesktop: return .anonymousEncryption
            default: return .open
            }
        }
    }

    /// The RFB security types these methods imply, in order (VeNCrypt for any subtype).
    public static func types(_ methods: [SecurityMethod]) -> [UInt8] {
        var out: [UInt8] = []
        for m in methods {
            let t: UInt8
            switch m { case .type(let x): t = x; case .veNCrypt: t = SecurityType.veNCrypt }
            if !out.contains(t) { out.append(t) }
        }
        return out
    }

    /// Whether a password sent with this method is encrypted on the wire (to whom is another
    /// matter: `ChannelProtection`).
    public var protectsCredentials: Bool { strength > .open }
}

/// What the channel a secret would travel over proves, as the engine knows it when it asks for
/// credentials. The engine alone decides it (`ClientEngine.channelProtection`), from the method
/// and from how the server's identity was checked; a saved secret goes on its own only over
/// `.authenticated`.
public enum ChannelProtection: Int, Comparable, Sendable {
    /// Nothing encrypted (None, VncAuth, Plain).
    case clear = 0
    /// Encrypted to a peer nobody vouches for: anonymous TLS, ARD's anonymous Diffie-Hellman,
    /// or a certificate or RSA key seen for the first time (accepted now, not checked).
    case anonymous = 1
    /// Encrypted to the server named: its certificate verified by an authority, or its
    /// certificate or RSA key the one remembered for it.
    case authenticated = 2
    public static func < (a: ChannelProtection, b: ChannelProtection) -> Bool { a.rawValue < b.rawValue }
}

/// What the engine asks for when a security type needs credentials.
public struct CredentialRequest: Sendable, Equatable {
    /// Security type or subtype name, e.g. "X509Plain", "RA2_256", "VncAuth".
    public var method: String
    public var needsUsername: Bool
    /// host:port as the user gave it (may be empty in tests).
    public var server: String
    /// What the channel the credentials would travel over proves.
    public var channel: ChannelProtection
    /// Whether the credentials would travel encrypted (saved ones are sent over an unencrypted
    /// method only when they were saved from one).
    public var protected: Bool { channel > .clear }
    /// Whether the channel leads to the server named, as checked: only then does a saved
    /// secret go without asking.
    public var authenticated: Bool { channel == .authenticated }
    public init(method: String, needsUsername: Bool, server: String, channel: ChannelProtection = .clear) {
        self.method = method; self.needsUsername = needsUsername; self.server = server; self.channel = channel
    }
}

/// A user name and a password; the password in a `Secret`, so it is zeroed when it goes and
/// never copied without saying so (`duplicate()`).
public struct Credentials: ~Copyable, Sendable {
    public var username: String
    public var password: Secret
    public init(username: String = "", password: consuming Secret) { self.username = username; self.password = password }
    /// From bytes (fixed values and tests); the caller's array is the caller's to wipe.
    public init(username: String = "", password: [UInt8]) { self.init(username: username, password: Secret(copying: password)) }
    public func duplicate() -> Credentials { Credentials(username: username, password: password.duplicate()) }
}

/// How the server's identity was checked in this handshake (what makes a channel authenticated).
public enum PeerIdentityCheck: Sendable, Equatable {
    /// Nothing identifies the server (no certificate or key, or not checked yet).
    case none
    /// Its certificate (SHA-256 `fingerprint` of the DER) verified through an authority, for the name asked.
    case authority(fingerprint: [UInt8])
    /// Its certificate or RSA key is the one remembered for this server.
    case remembered
    /// Its certificate or RSA key was seen for the first time, and accepted.
    case acceptedNew
}

/// A server identity the engine could not verify through a certificate authority: a certificate
/// that failed verification (self-signed, wrong host name, expired) or an RSA-AES server key.
public struct ServerIdentity: Sendable, Equatable {
    public enum Kind: String, Sendable { case x509 = "x509", rsa = "rsa" }
    public var kind: Kind
    /// host:port the user asked for.
    public var server: String
    /// SHA-256 of the DER certificate, or of RealVNC's key representation for RSA-AES.
    public var fingerprint: [UInt8]
    /// Human form: "AA:BB:…" for certificates, RealVNC's "xx-xx-xx-…" words for RSA keys.
    public var displayFingerprint: String
    /// Why verification failed (nil for RSA keys, which have no authority).
    public var verifyError: String?
    /// Subject of the certificate when there is one.
    public var subject: String?
    public init(kind: Kind, server: String, fingerprint: [UInt8], displayFingerprint: String,
                verifyError: String?, subject: String?) {
        self.kind = kind; self.server = server; self.fingerprint = fingerprint
        self.displayFingerprint = displayFingerprint; self.verifyError = verifyError; self.subject = subject
    }
}

public enum TrustDecision: Sendable, Equatable {
    /// Accepted the first time it is seen (by the user, or trusted as new): the channel is
    /// encrypted to it but nothing proves it is the server named.
    case accept
    /// The identity remembered for this server (a pin that matched): the channel is authenticated.
    case known
    /// Refused, with the reason shown to the user.
    case reject(String)
}

extension Array where Element == UInt8 {
    /// "AA:BB:CC…"
    var colonHex: String { map { String($0, radix: 16, uppercase: true).leftPadded(2) }.joined(separator: ":") }
}

extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
