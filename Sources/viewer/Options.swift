import ArgumentParser
import FarcastTools
import Foundation
import Interaction
import RFB
import SDLViewer
import VNCSession

/// Option values as types, each parsed and checked once where ArgumentParser reads it: a bad
/// value is refused with a message that says what was wrong and what is accepted. The names
/// come from the tables the protocol code uses, so help and parser never disagree.

/// Exit with a one-line reason on stderr (what was wrong and, where we can, how to fix it).
func die(_ msg: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("viewer: \(msg)\n".utf8))
    exit(code)
}

/// A line on stderr.
func say(_ msg: String) { FileHandle.standardError.write(Data("viewer: \(msg)\n".utf8)) }

enum Parse {
    static func encodings(_ s: String) throws -> [Int32] {
        do { return try Encoding.parseList(s) } catch { throw ValidationError("\(error)") }
    }

    static func security(_ s: String) throws -> [SecurityMethod] {
        do { return try SecurityMethod.parseList(s) } catch { throw ValidationError("\(error)") }
    }

    /// 0-9 for --quality and --compress (ArgumentParser names the option in its message).
    static func level(_ s: String) throws -> Int {
        guard let n = Int(s), (0...9).contains(n) else { throw ValidationError("give a whole number from 0 to 9") }
        return n
    }

    static func decodeThreads(_ s: String) throws -> Int {
        guard let n = Int(s), (1...16).contains(n) else { throw ValidationError("give a whole number of threads from 1 to 16") }
        return n
    }

    /// The cores, at most 4 (TigerVNC's DecodeManager): past that, parsing and the zlib streams,
    /// which stay on one thread, are the limit.
    static var defaultDecodeThreads: Int { min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    /// A positive, finite number of seconds.
    static func seconds(_ s: String) throws -> Double {
        guard let v = Double(s), v.isFinite, v > 0, v <= 86_400 else {
            throw ValidationError("give a number of seconds above 0 and at most 86400")
        }
        return v
    }

    static func rotation(_ s: String) throws -> Int {
        guard let v = Int(s), [0, 90, 180, 270].contains(v) else { throw ValidationError("give 0, 90, 180 or 270 (degrees clockwise)") }
        return v
    }

    static func speed(_ s: String) throws -> Double {
        guard let v = Double(s.hasSuffix("x") ? String(s.dropLast()) : s), PlaybackClock.speeds.contains(v) else {
            throw ValidationError("give a speed of 0.25, 0.5, 1, 2, 4 or 8")
        }
        return v
    }

    static func scaling(_ s: String) throws -> ScalingMode {
        guard let m = ScalingMode(parsing: s) else { throw ValidationError("use fit, 1:1 or a zoom from 10% to 1600%") }
        return m
    }

    static func reconnect(_ s: String) throws -> ReconnectPolicy {
        do { return try ReconnectPolicy.parse(s) } catch { throw ValidationError("\(error)") }
    }

    static func display(_ s: String) throws -> ViewerConfiguration.LocalDisplay {
        if s.lowercased() == "all" { return .all }
        guard let n = Int(s), n >= 1 else {
            throw ValidationError("give a local display number from 1, or 'all' to span every display")
        }
        return .number(n)
    }

    /// A size such as 200M or 2G (bytes, K, M, G), from the recorder's smallest limit.
    static func recordingSize(_ s: String) throws -> Int {
        guard let n = RecordingLimit.parseSize(s), n >= RecordingLimit.minimumMaxBytes else {
            throw ValidationError("give a size from 64K, such as 500M or 2G")
        }
        return n
    }

    static func positive(_ what: String) -> @Sendable (String) throws -> Int {
        { s in
            guard let n = Int(s), n >= 1 else { throw ValidationError("give \(what)") }
            return n
        }
    }
}

/// `--pixel-format`.
enum PixelFormatChoice: String, CaseIterable, ExpressibleByArgument {
    case rgb888, rgb565, bgr233, cmap8
    var format: PixelFormat { PixelFormat(name: rawValue) ?? .native }
}

extension ClipboardDirection: ExpressibleByArgument {}
extension ViewerConfiguration.OnDisconnect: ExpressibleByArgument, CaseIterable {
    public static var allCases: [ViewerConfiguration.OnDisconnect] { [.prompt, .quit, .reconnect] }
}
