import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A kiosk on the console (KMSDRM) keeps its virtual terminal. SDL mutes the console's keyboard
/// (K_OFF), which stops Ctrl+Alt+Fn, Ctrl+C and the like as long as nothing unmutes it; but the
/// kernel's Alt+SysRq+R (Debian's kernel.sysrq allows it) gives the keyboard back to the console.
/// Measured in the kiosk VM test: after that, Ctrl+Alt+F2 switches to tty2, and Ctrl+C,
/// Ctrl+\ or the SysRq key itself (the console's keymap makes it ^\) send SIGINT or SIGQUIT to
/// the kiosk, tty1's foreground process. So the viewer
/// - puts its VT in VT_PROCESS mode with no release signal: a switch asked for (that key, or
///   `chvt`) waits for a release this process never gives, while it lives; once it has exited
///   or been killed the kernel finds the VT's owner gone and switches as asked;
/// - turns off the terminal's signal characters (ISIG), so no key on tty1 signals it.
///
/// Main thread; `release()` before exiting (systemd's TTYReset sets the terminal right again
/// after a crash).
final class ConsoleHold {
    private var fd: Int32 = -1
    private var savedTermios: termios?

    // linux/vt.h (not in Swift's Glibc module)
    private static let VT_SETMODE: UInt = 0x5602
    private static let VT_AUTO: UInt8 = 0, VT_PROCESS: UInt8 = 1

    /// Holds the controlling terminal when it is a VT; false (and nothing changed) otherwise.
    func hold() -> Bool {
        guard fd < 0 else { return true }
        let f = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard f >= 0 else { return false }
        guard ConsoleHold.setMode(f, ConsoleHold.VT_PROCESS) else { close(f); return false }
        fd = f
        var t = termios()
        if tcgetattr(f, &t) == 0 {
            savedTermios = t
            t.c_lflag &= ~tcflag_t(ISIG)
            _ = tcsetattr(f, TCSANOW, &t)
        }
        return true
    }

    func release() {
        guard fd >= 0 else { return }
        if var t = savedTermios { _ = tcsetattr(fd, TCSANOW, &t) }
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
