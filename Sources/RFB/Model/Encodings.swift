import Foundation

/// RFB encoding numbers (real and pseudo).
public enum Encoding {
    public static let raw: Int32 = 0
    public static let copyRect: Int32 = 1
    public static let rre: Int32 = 2
    public static let coRRE: Int32 = 4
    public static let hextile: Int32 = 5
    public static let zlib: Int32 = 6
    public static let tight: Int32 = 7
    public static let zrle: Int32 = 16
    /// Tight with PNG instead of zlib (QEMU, libvncserver): a real encoding with a negative number.
    public static let tightPNG: Int32 = -260
    /// One JPEG file per rect (TigerVNC 1.16, RealVNC).
    public static let jpeg: Int32 = 21
    /// Open H.264 (TigerVNC's number; the specification's "Open H.264 Encoding").
    public static let h264: Int32 = 50
    // pseudo-encodings
    public static let jpegQuality0: Int32 = -32     // -32 ... -23 = quality 0 ... 9
    public static let desktopSize: Int32 = -223
    public static let lastRect: Int32 = -224
    public static let cursor: Int32 = -239
    public static let xCursor: Int32 = -240
    public static let compressLevel0: Int32 = -256  // -256 ... -247 = level 0 ... 9
    public static let desktopName: Int32 = -307
    public static let extendedDesktopSize: Int32 = -308
    public static let qemuExtendedKeyEvent: Int32 = -258
    public static let extendedMouseButtons: Int32 = -316
    public static let pointerPos: Int32 = -232
    public static let qemuPointerMotionChange: Int32 = -257
    public static let ledState: Int32 = -261
    public static let qemuAudio: Int32 = -259
    public static let xvp: Int32 = -309
    public static let cursorWithAlpha: Int32 = -314
    /// The server may push updates without requests (EnableContinuousUpdates).
    public static let continuousUpdates: Int32 = -313
    /// Fence messages: synchronisation points and round-trip measurement.
    public static let fence: Int32 = -312
    public static let vmwareCursor: Int32 = 0x574d_5664
    public static let vmwareCursorPosition: Int32 = 0x574d_5666
    public static let vmwareLEDState: Int32 = 0x574d_5668

    /// The real encodings by name, in the spelling of vncviewer and rfbrec.py: the one list
    /// the parser, its error messages and the command line's help are made from.
    public static let names: [(name: String, encoding: Int32)] = [
        ("raw", raw), ("copyrect", copyRect), ("rre", rre), ("corre", coRRE), ("hextile", hextile),
        ("zlib", zlib), ("zrle", zrle), ("tight", tight), ("tightpng", tightPNG), ("jpeg", jpeg), ("h264", h264),
    ]
    public static let byName: [String: Int32] = Dictionary(uniqueKeysWithValues: names.map { ($0.name, $0.encoding) })
    /// "raw,copyrect,…" for messages and help.
    public static var knownNames: String { names.map(\.name).joined(separator: ",") }
    /// Real encodings in our default order of preference (best first). H.264 comes after
    /// Tight and ZRLE: servers take the first they know, so it is used by default only where
    /// neither is offered. It is lossy with no lossless refresh (text is only as sharp as the
    /// server's encoder makes it), so it is the user's choice (`--encodings h264,...`, e.g.
    /// for video, or to spare a Pi's CPU under wayvnc with a hardware encoder).
    public static let defaultPreference: [Int32] = [tight, copyRect, zrle, h264, jpeg, tightPNG, hextile, zlib, coRRE, rre, raw]
    /// Lossy-only encodings: offered only when a JPEG quality is given or the user named them.
    public static let lossyOnly: Set<Int32> = [h264, jpeg]
    /// Encodings decoded only on a connection that offered them (`ClientSettings.refusesUnoffered`):
    /// a lossless session never decodes H.264, whatever the server sends.
    public static let decodedOnlyWhenOffered: Set<Int32> = [h264]

    public static func name(_ e: Int32) -> String {
        if let n = names.first(where: { $0.encoding == e })?.name { return n }
        switch e {
        case desktopSize: return "DesktopSize"
        case lastRect: return "LastRect"
        case cursor: return "Cursor"
        case xCursor: return "XCursor"
        case desktopName: return "DesktopName"
        case extendedDesktopSize: return "ExtendedDesktopSize"
        case qemuExtendedKeyEvent: return "QEMUExtendedKeyEvent"
        case extendedMouseButtons: return "ExtendedMouseButtons"
        case pointerPos: return "PointerPos"
        case qemuPointerMotionChange: return "QEMUPointerMotionChange"
        case ledState: return "LEDState"
        case qemuAudio: return "QEMUAudio"
        case xvp: return "xvp"
        case cursorWithAlpha: return "CursorWithAlpha"
        case continuousUpdates: return "ContinuousUpdates"
        case fence: return "Fence"
        case vmwareCursor: return "VMwareCursor"
        case vmwareCursorPosition: return "VMwareCursorPosition"
        case vmwareLEDState: return "VMwareLEDState"
        default: return "encoding \(e)"
        }
    }

    /// Parses a comma-separated preference list ("zrle,copyrect"); unknown names are an error that lists the known ones.
    public static func parseList(_ s: String) throws -> [Int32] {
        var out: [Int32] = []
        for part in s.split(separator: ",") {
            let n = part.trimmingCharacters(in: .whitespaces).lowercased()
            guard let e = byName[n] else {
                throw ConfigError("unknown encoding '\(n)'; known: \(knownNames)")
            }
            if !out.contains(e) { out.append(e) }
        }
        if out.isEmpty { throw ConfigError("empty encoding list; give e.g. zrle,copyrect") }
        return out
    }
}

