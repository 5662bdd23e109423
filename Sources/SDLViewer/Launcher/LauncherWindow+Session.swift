import CSDL2
import Foundation
import Interaction
import VNCSession
#if canImport(Glibc)
import Glibc
#endif

/// One session's process, started by the launcher.
final class RunningSession: @unchecked Sendable {
    let process: Process
    let address: String
    let savedName: String?
    let thumbnail: String
    let started: Date
    /// The child's stderr, passed on to ours; its last line says why a session ended.
    private let lock = NSLock()
    private var lastLine = ""
    let stderr: Pipe
    init(process: Process, stderr: Pipe, address: String, savedName: String?, thumbnail: String) {
        self.process = process; self.stderr = stderr; self.address = address; self.savedName = savedName
        self.thumbnail = thumbnail; started = Date()
    }

    /// Main thread, once the process has ended: what it wrote last and the handler has not
    /// read yet, without waiting for a grandchild (ssh) that may still hold the pipe.
    func drain() {
        let h = stderr.fileHandleForReading
        h.readabilityHandler = nil
        let fd = h.fileDescriptor
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            received(Data(buf[0..<n]))
        }
    }

    /// Called on the pipe's reading thread.
    func received(_ d: Data) {
        FileHandle.standardError.write(d)
        let text = String(decoding: d, as: UTF8.self)
        lock.withLock {
            lastLine = String((lastLine + text).suffix(4096))
        }
    }

    var reason: String {
        lock.withLock {
            let l = lastLine.split(separator: "\n").last.map(String.init) ?? ""
            return l.hasPrefix("viewer: ") ? String(l.dropFirst(8)) : l
        }
    }
}

extension LauncherWindow {
    func connect(_ it: LauncherItem) {
        if it.kind == .saved, let c = store.contents.connections.first(where: { $0.name == it.title }) {
            start(arguments: ViewCommandLine.arguments(for: c), address: c.address, username: c.username, savedName: c.name)
        } else {
            quickConnect(it.address)
        }
    }

    func quickConnect(_ text: String) {
        do { _ = try ConnectionTarget.parse(text) } catch {
            state.notice = "\(error)"
            return
        }
        guard !text.hasPrefix("-") else { state.notice = "'\(text)' is not an address"; return }
        try? recent.add(text)
        start(arguments: [text], address: text, username: nil, savedName: nil)
    }

    /// Starts `viewer view ARGS` as a process of its own. Its environment carries the user
    /// name and where to leave the thumbnail; never a password (the session finds a saved one
    /// in the credential store itself, or asks in its window).
    func start(arguments: [String], address: String, username: String?, savedName: String?) {
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "VNC_PASSWORD")
        env["VNC_USERNAME"] = username
        let thumb = SessionThumbnails.path(for: address, in: thumbnailDirectory)
        env["FARCAST_THUMBNAIL"] = thumb
        let err = Pipe()
        let p: Process
        do { p = try ChildProcess.start(executable, ["view"] + arguments, environment: env, stderr: .pipe(err)) } catch {
            state.notice = "Could not start a session: \(error.localizedDescription)"
            return
        }
        // what it wrote before this handler was set waits in the pipe
        let s = RunningSession(process: p, stderr: err, address: address, savedName: savedName, thumbnail: thumb)
        err.fileHandleForReading.readabilityHandler = { h in
            let d = h.availableData
            if d.isEmpty { h.readabilityHandler = nil } else { s.received(d) }
        }
        running = s
        keyboardShown = false
        state.notice = nil
        SDL_HideWindow(window)
    }

    /// The session's process ended: note when it last connected (its thumbnail is fresh), then
    /// come back, or exit as the viewer always did when `return-to-launcher = no`.
    func sessionEnded(_ s: RunningSession) {
        running = nil
        s.drain()
        let status = s.process.terminationStatus
        let attrs = try? FileManager.default.attributesOfItem(atPath: s.thumbnail)
        let connected = (attrs?[.modificationDate] as? Date).map { $0 >= s.started.addingTimeInterval(-1) } ?? false
        if connected {
            if let old = thumbnails.removeValue(forKey: s.address), let t = old { SDL_DestroyTexture(t.tex) }
            if let name = s.savedName {
                var c = freshContents()
                if store.problem == nil, let i = c.connections.firstIndex(where: { $0.name == name }) {
                    c.connections[i].lastConnected = Date()
                    try? store.save(c)
                }
            } else {
                try? recent.add(s.address)
            }
        }
        // the file may have been edited while the session ran
        _ = freshContents()
        refreshItems()
        if status != 0 {
            let why = s.reason
            state.notice = "The session with \(s.address) ended" + (why.isEmpty ? " (exit status \(status))" : ": \(why)")
        }
        exitStatus = status
        if !store.contents.returnToLauncher {
            quit = true
            return
        }
        SDL_ShowWindow(window)
        SDL_RaiseWindow(window)
    }
}
