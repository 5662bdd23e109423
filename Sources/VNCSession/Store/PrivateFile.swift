import Foundation
import RFB
#if canImport(Glibc)
import Glibc
#endif

/// Files only the user may read (saved passwords, remembered screens, screenshots, recordings,
/// thumbnails), made one way: created exclusively (`O_EXCL`: a file or a link already there is
/// never written through), without following a link (`O_NOFOLLOW`), mode 0600 from the start.
public enum PrivateFile {
    /// Names tried for a fresh file before giving up: "name (2)" ... "name (999)".
    static let maxFreshNames = 999

    /// Creates `path` for writing and returns its descriptor (the caller closes it). With
    /// `replacingRegularFile`, a regular file already there is removed first (what `-o FILE`
    /// means); a link, a directory or a device there is refused, and one that appears between
    /// the removal and the creation fails the exclusive open.
    public static func create(_ path: String, replacingRegularFile: Bool = false) throws -> Int32 {
        if replacingRegularFile {
            var st = stat()
            if lstat(path, &st) == 0 {
                guard (st.st_mode & S_IFMT) == S_IFREG else {
                    throw ProtocolError("cannot write \(path): it is not a regular file (a link is not followed)")
                }
                guard unlink(path) == 0 else { throw ProtocolError("cannot replace \(path): \(String(cString: strerror(errno)))") }
            }
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let e = errno
            if e == EEXIST { throw ProtocolError("cannot write \(path): something is already there (a new file is never written through an existing one or a link)") }
            throw ProtocolError("cannot write \(path): \(String(cString: strerror(e)))")
        }
        // the umask may have taken bits away, never added them; 0600 whatever it was
        _ = fchmod(fd, 0o600)
        return fd
    }

    /// A new file `dir/name`, or "base (2).ext"... when that is taken, created as `create`
    /// does: the name is claimed by the exclusive open itself, so nothing planted between a
    /// check and the open is written through. The folder is made (0700) when missing.
    public static func createFresh(in dir: String, name: String) throws -> (path: String, fd: Int32) {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let url = URL(fileURLWithPath: name)
        let base = url.deletingPathExtension().lastPathComponent, ext = url.pathExtension
        for n in 1...maxFreshNames {
            let p = n == 1 ? dir + "/" + name : dir + "/\(base) (\(n))" + (ext.isEmpty ? "" : ".\(ext)")
            let fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 { _ = fchmod(fd, 0o600); return (p, fd) }
            guard errno == EEXIST else { throw ProtocolError("cannot write \(p): \(String(cString: strerror(errno)))") }
        }
        throw ProtocolError("cannot write in \(dir): \(maxFreshNames) files named like \(name) are there already")
    }

    /// Writes every byte; false on an error.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var off = 0
        while off < bytes.count {
            guard let base = bytes.baseAddress else { return false }
            let n = write(fd, base + off, bytes.count - off)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            off += n
        }
        return true
    }

    /// A new file with `bytes` (screenshots): `createFresh`, written, closed.
    public static func writeFresh(in dir: String, name: String, _ bytes: [UInt8]) throws -> String {
        let (path, fd) = try createFresh(in: dir, name: name)
        let ok = bytes.withUnsafeBytes { writeAll(fd, $0) }
        close(fd)
        guard ok else { unlink(path); throw ProtocolError("cannot write \(path): \(String(cString: strerror(errno)))") }
        return path
    }

    /// Replaces `path` with `bytes` atomically: a temporary file in the same directory made by
    /// `create`, written and synced, then renamed over the old one, so a crash or a full disk
    /// leaves the old file whole. With `onlyRegularFile`, a link or anything but a regular file
    /// at `path` is refused rather than replaced (`-o FILE`); otherwise the rename replaces a
    /// link itself, never what it points to. The directory is made 0700 when missing, if asked.
    public static func replace(_ path: String, with bytes: [UInt8], makeDirectory: Bool = true,
                               onlyRegularFile: Bool = false) throws {
        try bytes.withUnsafeBytes { try replace(path, with: $0, makeDirectory: makeDirectory, onlyRegularFile: onlyRegularFile) }
    }

    /// The same from raw bytes (a Secret's: the saved-credentials file).
    public static func replace(_ path: String, with bytes: UnsafeRawBufferPointer, makeDirectory: Bool = true,
                               onlyRegularFile: Bool = false) throws {
        if makeDirectory {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        var st = stat()
        if onlyRegularFile, lstat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFREG {
            throw ProtocolError("cannot write \(path): it is not a regular file (a link is not followed)")
        }
        let tmp = path + ".tmp-\(getpid())"
        unlink(tmp)
        let fd = try create(tmp)
        var ok = writeAll(fd, bytes)
        ok = ok && fsync(fd) == 0
        close(fd)
        guard ok, rename(tmp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(tmp)
            throw ProtocolError("cannot write \(path): \(reason)")
        }
    }

    static func replace(_ path: String, with text: String) throws {
        try replace(path, with: Array(text.utf8))
    }
}
