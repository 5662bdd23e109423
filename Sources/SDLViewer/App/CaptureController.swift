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
/// recording (FBS), into the desktop's pictures and videos folders: the recording in progress,
/// its size limit, and the notices saying where files went. The window shows the notices it
/// returns; work finished off the main thread comes back through `wake`. Main thread only.
final class CaptureController {
    let session: Session
    /// Where a recording stops by itself (`--recording-max-size`).
    let recordingMaxBytes: Int?
    /// The XDG pictures and videos folders (read from the environment by `viewer/`).
    let picturesDirectory: String, videosDirectory: String
    /// Asks the main thread to look (a screenshot written, a recording stopped by itself).
    let wake: WakeSignal?
    /// Notices from the screenshot's writer thread.
    private let tasks = MainTasks()
    /// The session recording while one runs (menu or Ctrl+Alt+R), with its red dot.
    private(set) var recorder: SessionRecorder?

    init(session: Session, recordingMaxBytes: Int?, picturesDirectory: String, videosDirectory: String, wake: WakeSignal?) {
        self.session = session
        self.recordingMaxBytes = recordingMaxBytes
        self.picturesDirectory = picturesDirectory
        self.videosDirectory = videosDirectory
        self.wake = wake
    }

    var recording: Bool { recorder != nil }

    /// After a wake-up: notices from other threads, and a recording that stopped by itself
    /// (the size limit, a write error) ended here.
    func takeNotices() -> [String] {
        var n = tasks.take()
        if let r = recorder, r.stopped { n.append(endRecording(r)) }
        return n
    }

    private var fileName: String { session.desktopName.isEmpty ? session.spec : session.desktopName }

    /// The pixels are copied under the framebuffer lock (one memcpy per row); encoding and
    /// writing happen off the main thread, so the window never stalls on a large desktop.
    /// `region`: the remote screen shown (nil: the whole desktop). Returns a notice when there
    /// is nothing to take; the saved file's notice comes later through `takeNotices`.
    func screenshot(region: Rect?) -> String? {
        let copy: (w: Int, h: Int, px: [UInt32])? = session.withFramebuffer { fb in
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
        guard let copy else { return "Nothing to take a screenshot of yet" }
        let name = fileName
        let dir = picturesDirectory
        let tasks = self.tasks, wake = self.wake
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
        return nil
    }

    /// Starts recording into the videos folder, or stops and says where the file is.
    func toggleRecording() -> String {
        if let r = recorder { return endRecording(r) }
        do {
            let (path, fd) = try PrivateFile.createFresh(in: videosDirectory,
                                                         name: UserDirectories.stampedName(fileName, ext: "fbs"))
            let r = SessionRecorder(path: path, fileDescriptor: fd, maxBytes: recordingMaxBytes)
            // the size limit or a write error stops it on the session's thread: the next
            // wake-up ends it here (takeNotices)
            let wake = self.wake
            r.onStop = { wake?.signal() }
            session.startRecording(r)
            recorder = r
            return "Recording to \(path) — Ctrl+Alt+R stops"
        } catch {
            return "Recording could not start: \(error)"
        }
    }

    /// Stopped from the menu or Ctrl+Alt+R, or by itself (the size limit, a write error): the
    /// file is closed and the notice says where it is and why it ended.
    private func endRecording(_ r: SessionRecorder) -> String {
        session.stopRecording()
        r.close()
        recorder = nil
        let size = { (n: Int) in ByteCountFormatter.string(fromByteCount: Int64(n), countStyle: .file) }
        let figures = String(format: "%.0f s, %@", r.seconds, size(r.fileBytes))
        if r.limitReached {
            let line = "Recording stopped at its size limit (\(RecordingLimit.sizeText(r.maxBytes ?? r.fileBytes))): \(r.path)"
            FileHandle.standardError.write(Data("viewer: \(line)\n".utf8))
            return line
        }
        return r.failure ?? "Recording saved (\(figures)): \(r.path)"
    }

    /// Before teardown: a recording in progress is closed (what was written stays playable).
    func finish() {
        if let r = recorder { session.stopRecording(); r.close(); recorder = nil }
    }
}
