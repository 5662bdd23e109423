import Foundation
import RFB
#if canImport(Glibc)
import Glibc
#endif

/// The user's own small state files (saved passwords, remembered screens).
enum PrivateFile {
    /// Replaces `path` with `text` atomically: a 0600 temporary file in the same directory
    /// (created so from the start: O_EXCL, no umask window), written and synced, then renamed
    /// over the old one, so a crash or a full disk leaves the old file whole. The directory is
    /// made 0700 when missing.
    static func replace(_ path: String, with text: String) throws {
        let dir = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let tmp = path + ".tmp-\(getpid())"
        unlink(tmp)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ProtocolError("cannot write \(tmp): \(String(cString: strerror(errno)))") }
        var ok = fchmod(fd, 0o600) == 0
        let bytes = Array(text.utf8)
        var off = 0
        while ok && off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { ok = false } else { off += n }
        }
        ok = ok && fsync(fd) == 0
        close(fd)
        guard ok, rename(tmp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(tmp)
            throw ProtocolError("cannot write \(path): \(reason)")
        }
    }
}
