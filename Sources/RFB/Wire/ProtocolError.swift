/// The one error type for anything a server (or a recording) got wrong.
/// Its message names what was wrong; the connection ends, the viewer stays up.
public struct ProtocolError: Error, CustomStringConvertible, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Thrown by `ByteReader` when the buffered bytes end before the unit being parsed.
/// Never escapes the engine: it means "feed me more and call again".
struct NeedMoreData: Error {}

/// Named limits on what a server may claim, each with its reason.
public enum Limits {
    /// 16384² covers 8K multi-monitor desktops; anything larger is a hostile claim.
    public static let maxFramebufferDimension = 16384
    /// 64 Mpixel (256 MiB) is the most we allocate for one framebuffer: three 4K monitors
    /// side by side are 25 Mpixel, an 8K desktop 33 Mpixel.
    public static let maxFramebufferPixels = 64 * 1024 * 1024
    /// Desktop names are shown in a title bar; 64 KiB is already absurd.
    public static let maxDesktopNameLength = 64 * 1024
    /// Failure reasons are one-line messages.
    public static let maxReasonLength = 64 * 1024
    /// Cut text above this is skipped as it arrives (never buffered): the clipboard cap.
    public static let maxCutTextLength = 10 * 1024 * 1024
    /// Cursors are small images; 1024² covers any HiDPI cursor ever shipped.
    public static let maxCursorDimension = 1024
    /// A server offers a handful of security types; the count is a byte anyway.
    public static let maxSecurityTypes = 255
    /// Compressed payload of one rectangle: zlib never expands incompressible data by more than
    /// a few bytes per 16 KiB block, so twice the rect's raw size (+64 KiB) is always enough.
    public static func maxCompressedLength(rawSize: Int) -> Int { rawSize * 2 + 65536 }
}
