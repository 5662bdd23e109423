/// Text a server chose (desktop names, failure reasons) on its way to a terminal, a log or a
/// window title: every control character (C0, DEL and C1, which terminals act on), the Unicode
/// line breaks and the marks that reorder text are removed, and the length is capped, so a
/// server cannot move a cursor, clear a screen or forge lines.
public enum ServerText {
    public static func printable(_ s: String, limit: Int = 1024) -> String {
        var out = String.UnicodeScalarView()
        var n = 0
        for u in s.unicodeScalars where !isControl(u) {
            if n == limit { break }
            out.append(u)
            n += 1
        }
        return String(out)
    }

    @inline(__always) static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7f...0x9f).contains(u.value)
            // bidirectional overrides and isolates reorder what follows them on screen, and so
            // do the left-to-right, right-to-left and Arabic letter marks
            || (0x202a...0x202e).contains(u.value) || (0x2066...0x2069).contains(u.value)
            || u.value == 0x200e || u.value == 0x200f || u.value == 0x061c
            // line and paragraph separators end a line as a newline does
            || u.value == 0x2028 || u.value == 0x2029
    }
}
