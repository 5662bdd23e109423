/// What the client asks of the server and how it authenticates.
public struct ClientSettings: Sendable {
    /// Pixel format to request; the framebuffer is always 32 bpp and other formats are converted while decoding.
    public var pixelFormat: PixelFormat = .native
    /// Real encodings in order of preference (sent in this order; H.264 is left out when
    /// lossless pictures are asked for, unless the user named the list).
    public var encodings: [Int32] = Encoding.defaultPreference
    /// True when the user named the encodings (`--encodings`): sent exactly as given.
    public var encodingsNamedByUser = false
    /// Threads that decode: 1 decodes everything on the engine's thread, as it always did; N
    /// adds N-1 workers that take Tight and ZRLE rects while they have room (DecodeManager).
    public var decodeThreads = 1
    /// Tight JPEG quality 0–9; nil asks for lossless.
    public var jpegQuality: Int? = nil
    /// A rect in an `Encoding.decodedOnlyWhenOffered` encoding that this connection never
    /// offered ends it. A recording's replay turns this off: its rects are in whatever the
    /// recorded session negotiated, and what the replaying engine "sends" goes nowhere.
    public var refusesUnoffered = true
    /// Compression level 0–9; nil leaves the server's default.
    public var compressLevel: Int? = nil
    public var shared = true
    /// Pseudo-encodings we handle.
    public var wantCursor = true
    public var wantDesktopSize = true
    /// ExtendedDesktopSize: the server's screen layout, and SetDesktopSize once it has sent one.
    public var wantExtendedDesktopSize = true
    public var wantLastRect = true
    public var wantDesktopName = true
    /// QEMU Extended Key Event: raw key codes for servers (VMs) that take them.
    public var wantQEMUKeyEvents = true
    /// ExtendedMouseButtons: back/forward (buttons 8/9) for servers that take them.
    public var wantExtendedMouseButtons = true
    /// Extended Clipboard: UTF-8 text, used when the server offers it (classic Latin-1 otherwise).
    public var wantExtendedClipboard = true
    /// Cursor shapes beyond RichCursor (with alpha, XCursor, VMware's), lock lights, QEMU's
    /// pointer mode, the pointer position and xvp power control.
    public var wantMorePseudoEncodings = true
    /// ContinuousUpdates and Fence: offered, used once the server shows it has them.
    public var wantContinuousUpdates = true
    /// QEMU audio: offered so the server says it can; streamed only once asked (`setAudio`).
    public var wantAudio = false
    /// Clipboard text cap in UTF-8 bytes, both ways: larger texts are refused with an event, never truncated.
    public var clipboardLimit = Limits.maxCutTextLength
    /// The cap in force: `clipboardLimit` within what the extension allows.
    public var clipboardByteLimit: Int { min(max(0, clipboardLimit), ExtendedClipboard.maxLimit) }
    /// Framebuffer cap in pixels, within `Limits.maxFramebufferPixels`: the fuzz targets set a
    /// small one, so no input can make every run allocate hundreds of MiB as a server may.
    public var maxFramebufferPixels = Limits.maxFramebufferPixels
    /// Security methods we accept, strongest first (vncviewer's SecurityTypes): RFB types and
    /// VeNCrypt subtypes. Only these are ever chosen, so excluding the unencrypted ones is final.
    public var securityMethods: [SecurityMethod] = SecurityMethod.defaultOrder
    /// The least a method must give: what this host was reached with before (set by the
    /// session from what it remembers, unless the user named the accepted types). A server
    /// offering only weaker methods is refused as a possible downgrade.
    public var minimumStrength: SecurityStrength = .open
    /// The method this host was reached with before, for the refusal.
    public var strongestBefore: SecurityMethod?
    /// True when the user named the accepted types (`--security`): no downgrade protection.
    public var securityNamedByUser = false
    /// `securityMethods` at or above `minimumStrength`, in order.
    public var allowedMethods: [SecurityMethod] { securityMethods.filter { $0.strength >= minimumStrength } }
    /// The RFB types `allowedMethods` implies, in order.
    public var allowedTypes: [UInt8] { SecurityMethod.types(allowedMethods) }

    /// The RFB security types `securityMethods` implies, in order (VeNCrypt for any subtype).
    /// Setting it replaces `securityMethods` with these types.
    public var securityTypes: [UInt8] {
        get { SecurityMethod.types(securityMethods) }
        set { securityMethods = newValue.map { .type($0) } }
    }
    /// Identity of the server for known hosts and saved credentials when it is not
    /// `host:port` (through a gateway; the peer of a reverse connection). One word.
    public var identity: String?
    /// Credentials to use without asking (a recording's replay, tests). Otherwise the engine
    /// emits `.credentialsRequired` and waits for `provideCredentials`. Never logged.
    public var password: [UInt8]? = nil
    /// User name for Plain, RSA-AES and Apple Remote Desktop, with `password`.
    public var username: String? = nil
    /// The host name as the user gave it: TLS host name checking and SNI.
    public var serverName: String = ""
    public var serverPort: Int = 5900
    /// PEM file of CA certificates for X509 subtypes; nil uses the system store.
    public var x509CAFile: String? = nil
    /// host:port (or `identity`) for messages, the known-hosts file and saved credentials.
    public var serverDescription: String {
        if let identity { return identity }
        return serverName.contains(":") ? "[\(serverName)]:\(serverPort)" : "\(serverName):\(serverPort)"
    }

    /// The cursor-shape encodings offered, in order: a server takes the first it knows (libvncserver
    /// takes RichCursor wherever it is), so alpha first, then colour, then two-colour XCursor.
    public var cursorEncodings: [Int32] = [Encoding.cursorWithAlpha, Encoding.vmwareCursor, Encoding.cursor, Encoding.xCursor]

    public init() {}

    /// The SetEncodings list: real encodings, then the pseudo-encodings.
    public var encodingList: [Int32] {
        // lossless (no quality given): the lossy-only encodings (H.264, JPEG) only when asked for by name
        var l = jpegQuality == nil && !encodingsNamedByUser
            ? encodings.filter { !Encoding.lossyOnly.contains($0) } : encodings
        // FFmpeg is loaded at the first H.264 rect; once that failed, H.264 is not offered again
        if FFmpegLibraries.unavailable { l.removeAll { $0 == Encoding.h264 } }
        if wantCursor { l += cursorEncodings.filter { wantMorePseudoEncodings || $0 == Encoding.cursor } }
        if wantMorePseudoEncodings {
            l += [Encoding.ledState, Encoding.vmwareLEDState, Encoding.qemuPointerMotionChange, Encoding.xvp,
                  Encoding.pointerPos, Encoding.vmwareCursorPosition]
        }
        if wantDesktopSize { l.append(Encoding.desktopSize) }
        if wantExtendedDesktopSize { l.append(Encoding.extendedDesktopSize) }
        if wantLastRect { l.append(Encoding.lastRect) }
        if wantDesktopName { l.append(Encoding.desktopName) }
        if wantQEMUKeyEvents { l.append(Encoding.qemuExtendedKeyEvent) }
        if wantExtendedMouseButtons { l.append(Encoding.extendedMouseButtons) }
        if wantExtendedClipboard { l.append(ExtendedClipboard.encoding) }
        if wantAudio { l.append(Encoding.qemuAudio) }
        if wantContinuousUpdates { l += [Encoding.continuousUpdates, Encoding.fence] }
        if let q = jpegQuality { l.append(Encoding.jpegQuality0 + Int32(max(0, min(9, q)))) }
        if let c = compressLevel { l.append(Encoding.compressLevel0 + Int32(max(0, min(9, c)))) }
        return l
    }
}

