import FarcastTools
import Foundation
import RFB
import VNCSession

/// Notices from other threads for the main thread, shown on the next wake-up event.
final class MainTasks: @unchecked Sendable {
    private let lock = NSLock()
    private var notices: [String] = []
    func add(notice: String) { lock.withLock { notices.append(notice) } }
    func take() -> [String] { lock.withLock { defer { notices.removeAll() }; return notices } }
}

/// Screenshots (a PNG of the remote desktop, or of the one remote screen shown) and session
/// recording (FBS), into the desktop's pictures and videos folders, with a notice saying where.
extension ViewerWindow {
    func runMainTasks() {
        for n in mainTasks.take() { showNotice(n) }
        if let r = recorder, r.stopped { endRecording(r) }
    }

    /// The pixels are copied under the framebuffer lock (one memcpy per row); encoding and
    /// writing happen off the main thread, so the window never stalls on a large desktop.
    func takeScreenshot() {
        let region = router.flatMap { monitors?.region($0.ui) }
        let copy: (w: Int, h: Int, px: [UInt32])? = withFramebuffer { fb in
            guard let fb else { return nil }
            let r = region.map { $0.intersection(Rect(x: 0, y: 0, w: fb.width, h: fb.height)) }
                ?? Rect(x: 0, y: 0, w: fb.width, h: fb.height)
            guard r.w > 0, r.h > 0 else { return nil }
            var px = [UInt32](repeating: 0, count: r.w * r.h)
            px.withUnsafeMutableBufferPointer { out in
                guard let o = out.baseAddress else { return }
                for y in 0..<r.h { (o + y * r.w).update(from: fb.row(r.y + y) + r.x, count: r.w) }
            }
            return (r.w, r.h, px)
        }
        guard let copy else { showNotice("Nothing to take a screenshot of yet"); return }
        let name = session.desktopName.isEmpty ? session.spec : session.desktopName
        let dir = UserDirectories.path("PICTURES", env: ProcessInfo.processInfo.environment)
        let tasks = mainTasks, wake = self.wake
        DispatchQueue.global(qos: .userInitiated).async {
            let message: String
            do {
                let png = copy.px.withUnsafeBufferPointer { b in
                    b.baseAddress.map { PNGWriter.encode(width: copy.w, height: copy.h, pixels: $0) } ?? []
                }
                // a picture of someone's remote screen: a new file only the user may read
                let path = try PrivateFile.writeFresh(in: dir, name: UserDirectories.stampedName(name, ext: "png"), png)
                message = "Screenshot saved: \(path)"
            } catch {
                message = "The screenshot could not be saved: \(error)"
            }
            tasks.add(notice: message)
            wake?.signal()
        }
    }

    /// Starts recording into the videos folder, or stops and says where the file is.
    func toggleRecording() {
        if let r = recorder { endRecording(r); return }
        let name = session.desktopName.isEmpty ? session.spec : session.desktopName
        do {
            let (path, fd) = try PrivateFile.createFresh(in: UserDirectories.path("VIDEOS", env: ProcessInfo.processInfo.environment),
                                                         name: UserDirectories.stampedName(name, ext: "fbs"))
            let r = SessionRecorder(path: path, fileDescriptor: fd, maxBytes: config.recordingMaxBytes)
            // the size limit or a write error stops it on the session's thread: the next
            // wake-up ends it here (runMainTasks)
            let wake = self.wake
            r.onStop = { wake?.signal() }
            session.startRecording(r)
            recorder = r
            router?.ui.recording = true
            showNotice("Recording to \(path) — Ctrl+Alt+R stops")
        } catch {
            showNotice("Recording could not start: \(error)")
        }
    }

    /// Stopped from the menu or Ctrl+Alt+R, or by itself (the size limit, a write error): the
    /// file is closed and a notice says where it is and why it ended.
    func endRecording(_ r: SessionRecorder) {
        session.stopRecording()
        r.close()
        recorder = nil
        router?.ui.recording = false
        let size = { (n: Int) in ByteCountFormatter.string(fromByteCount: Int64(n), countStyle: .file) }
        let figures = String(format: "%.0f s, %@", r.seconds, size(r.fileBytes))
        if r.limitReached {
            let line = "Recording stopped at its size limit (\(RecordingLimit.sizeText(r.maxBytes ?? r.fileBytes))): \(r.path)"
            FileHandle.standardError.write(Data("viewer: \(line)\n".utf8))
            showNotice(line)
        } else {
            showNotice(r.failure ?? "Recording saved (\(figures)): \(r.path)")
        }
        fullPresent = true
    }

    /// Before teardown: a recording in progress is closed (what was written stays playable).
    func finishRecording() {
        if let r = recorder { session.stopRecording(); r.close(); recorder = nil }
    }
}
