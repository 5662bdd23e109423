import CSystem
import Foundation
import RFB
import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// Secrets the process was started with, taken once and kept out of reach of others.
enum ProcessSecrets {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var password: SharedSecret?
    nonisolated(unsafe) private static var taken = false

    /// First thing in `main`: no core dumps (a password in memory must not land in a core
    /// file), and VNC_PASSWORD read and removed from the environment, so no child process
    /// (ssh for --via, secret-tool) inherits it; its bytes in the environment are zeroed too.
    static func secureProcess() {
        _ = farcast_forbid_core_dumps()
        lock.withLock {
            if taken { return }
            taken = true
            if let v = getenv("VNC_PASSWORD") {
                let n = strlen(v)
                password = SharedSecret(Secret(copying: UnsafeRawBufferPointer(start: v, count: n)))
                explicit_bzero(v, n)
            }
            unsetenv("VNC_PASSWORD")
        }
    }

    /// VNC_PASSWORD: as taken by `secureProcess`, else (a test that never called it) from the
    /// environment.
    static var vncPassword: SharedSecret? {
        lock.withLock {
            if taken { return password }
            guard let v = getenv("VNC_PASSWORD") else { return nil }
            return SharedSecret(Secret(copying: UnsafeRawBufferPointer(start: v, count: strlen(v))))
        }
    }
}
