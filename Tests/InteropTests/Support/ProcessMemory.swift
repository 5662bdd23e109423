import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Another process's memory, read through /proc (as root): where a byte string occurs in its
/// writable mappings (heap, stacks, anonymous memory), for tests that a secret is gone.
enum ProcessMemory {
    /// Largest mapping read whole; larger ones are read in chunks of this size.
    static let chunk = 16 << 20

    static func find(_ needle: [UInt8], pid: Int32) throws -> [UInt64] {
        guard !needle.isEmpty else { return [] }
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        let fd = open("/proc/\(pid)/mem", O_RDONLY)
        guard fd >= 0 else { throw HarnessError("cannot open /proc/\(pid)/mem: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var hits: [UInt64] = []
        var buf = [UInt8](repeating: 0, count: chunk + needle.count)
        for line in maps.split(separator: "\n") {
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count >= 2, f[1].hasPrefix("rw") else { continue }
            if f.count >= 6, f[5].hasPrefix("[v") { continue }   // [vvar], [vsyscall]: not readable this way
            let range = f[0].split(separator: "-")
            guard range.count == 2, let lo = UInt64(range[0], radix: 16), let hi = UInt64(range[1], radix: 16) else { continue }
            var at = lo
            while at < hi {
                // each chunk overlaps the next by the needle's length, so nothing is missed between them
                let want = Int(min(UInt64(buf.count), hi - at))
                let got = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(at)) }
                if got <= 0 { break }
                buf.withUnsafeBytes { b in
                    guard let base = b.baseAddress else { return }
                    var i = 0
                    while i + needle.count <= got {
                        if b[i] == needle[0] && memcmp(base + i, needle, needle.count) == 0 { hits.append(at + UInt64(i)) }
                        i += 1
                    }
                }
                if got <= needle.count { break }
                at += UInt64(got - needle.count)
                if UInt64(got) < UInt64(want) { break }
            }
        }
        return Array(Set(hits)).sorted()
    }
}
