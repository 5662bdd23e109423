import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A kiosk on the console (KMSDRM) keeps its virtual terminal: the VT is put in VT_PROCESS mode
/// with no release signal, so a switch asked for (Ctrl+Alt+F2 once the keyboard is back in the
/// console's hands, e.g. after Alt+SysRq+R; `chvt`) waits for a release this process never
/// gives, while it lives. SDL already mutes the console's keyboard (K_OFF), which stops
/// Ctrl+Alt+Fn as long as nothing unmutes it. When the viewer exits or is killed the kernel
/// finds the VT's owner gone and switches as asked.
///
/// Main thread; `release()` before exiting (systemd's TTYReset also sets the VT right again).
final class ConsoleHold {
    private var fd: Int32 = -1

    // linux/vt.h and linux/kd.h (not in Swift's Glibc module)
    private static let VT_SETMODE: UInt = 0x5602
    private static let VT_AUTO: UInt8 = 0, VT_PROCESS: UInt8 = 1

    /// Holds the controlling terminal when it is a VT; false (and nothing changed) otherwise.
    func hold() -> Bool {
        guard fd < 0 else { return true }
        let f = open("/dev/tty", O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard f >= 0 else { return false }
        guard ConsoleHold.setMode(f, ConsoleHold.VT_PROCESS) else { close(f); return false }
        fd = f
        return true
    }

    func release() {
        guard fd >= 0 else { return }
        _ = ConsoleHold.setMode(fd, ConsoleHold.VT_AUTO)
        close(fd)
        fd = -1
    }

    deinit { release() }

    /// struct vt_mode { char mode, waitv; short relsig, acqsig, frsig; }: the mode, no signals
    /// (a release signal of 0 is "ask nobody": the switch waits while this process lives).
    private static func setMode(_ fd: Int32, _ mode: UInt8) -> Bool {
        var m: [UInt8] = [mode, 0, 0, 0, 0, 0, 0, 0]
        return m.withUnsafeMutableBytes { b in b.baseAddress.map { ioctl(fd, VT_SETMODE, $0) } ?? -1 } == 0
    }
}
