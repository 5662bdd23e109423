import Foundation
import RFB

/// Transient notices (a screen change, a clipboard text refused for size); drawn by
/// Overlay/NoticeOverlay.swift until `noticeSeconds` have passed.
extension ViewerWindow {
    func showNotice(_ text: String?) {
        guard let text else { return }
        log("notice: \(text)")
        notice = (text, ViewerWindow.now() + ViewerWindow.noticeSeconds)
        fullPresent = true
    }

    /// The on-screen line for a clipboard text refused for size (nil for other events).
    static func clipboardNotice(_ ev: EngineEvent) -> String? {
        switch ev {
        case .cutTextSkipped(let n):
            return "Remote clipboard text (\(byteSize(n))) is over the clipboard limit: not taken"
        case .cutTextNotSent(let n, let limit):
            return "Clipboard text (\(byteSize(n))) is over the \(byteSize(limit)) limit: not sent"
        default:
            return nil
        }
    }

    static func byteSize(_ n: Int) -> String {
        if n >= 1 << 20 {
            let v = Double(n) / Double(1 << 20)
            return v == v.rounded() ? "\(Int(v)) MiB" : String(format: "%.1f MiB", v)
        }
        if n >= 1 << 10 { return "\(n >> 10) KiB" }
        return "\(n) bytes"
    }
}
