import Foundation
import RFB

/// A live connection: a session thread reads the socket and decodes into the framebuffer;
/// the front end (main thread) reads the framebuffer and damage under `lock` and sends input.
public final class Session: @unchecked Sendable {
    public enum State: Equatable, Sendable {
        case connecting, authenticating, ready, failed(String), closed
    }

    public let spec: HostSpec
    public let settings: ClientSettings
    /// Held by the session thread while decoding and by the front end while reading pixels.
    public let lock = NSLock()
    private let sendLock = NSLock()
    private var engine: ClientEngine
    private var transport: TCPTransport?
    private var events: [EngineEvent] = []
    private var _state: State = .connecting
    private var stopping = false
    /// Called on the session thread whenever there is something new (events, damage, state);
    /// the front end uses it to wake its event loop. Must be thread-safe.
    public var wake: @Sendable () -> Void = {}
    public var connectTimeout = 10.0

    public init(spec: HostSpec, settings: ClientSettings) {
        self.spec = spec
        self.settings = settings
        engine = ClientEngine(settings: settings)
    }

    public var state: State { lock.withLock { _state } }

    /// The framebuffer; read it only while holding `lock`.
    public var framebuffer: Framebuffer? { engine.framebuffer }
    public var desktopName: String { lock.withLock { engine.desktopName } }

    /// Events since the last call (main thread).
    public func takeEvents() -> [EngineEvent] { lock.withLock { defer { events.removeAll() }; return events } }

    public func start() {
        let t = Thread { [self] in self.run() }
        t.name = "farcast-session"
        t.start()
    }

    /// Ends the connection; the session thread exits on its own.
    public func stop() {
        lock.withLock { stopping = true }
        if let t = lock.withLock({ transport }) { shutdown(t.fd, Int32(SHUT_RDWR)) }
    }

    private func setState(_ s: State) {
        lock.withLock { _state = s }
        wake()
    }

    private func run() {
        do {
            let t = try TCPTransport.connect(spec, timeout: connectTimeout)
            lock.withLock { transport = t }
            setState(.authenticating)
            while true {
                let out: [UInt8] = lock.withLock { engine.takeOutput() }
                if !out.isEmpty { try sendLocked(out) }
                if lock.withLock({ stopping }) { break }
                if !t.waitReadable(timeout: 0.5) { continue }
                var newEvents: [EngineEvent] = []
                let got: Int = try lock.withLock {
                    let n = try engine.receive(atLeast: 65536) { p, cap in try t.recv(into: p, capacity: cap) }
                    newEvents = engine.takeEvents()
                    events += newEvents
                    if newEvents.contains(where: { if case .ready = $0 { return true }; return false }) { _state = .ready }
                    return n
                }
                if !newEvents.isEmpty { wake() }
                if got == 0 {
                    setState(lock.withLock { stopping } ? .closed : .failed("connection closed by the server"))
                    return
                }
            }
            setState(.closed)
        } catch {
            setState(lock.withLock { stopping } ? .closed : .failed("\(error)"))
        }
        lock.withLock { transport?.close() }
    }

    private func sendLocked(_ bytes: [UInt8]) throws {
        guard let t = lock.withLock({ transport }) else { return }
        try sendLock.withLock { try t.send(bytes) }
    }

    /// Pointer event in framebuffer coordinates (main thread). Dropped unless ready.
    public func sendPointer(x: Int, y: Int, buttons: UInt8) {
        let out: [UInt8] = lock.withLock {
            guard let fb = engine.framebuffer else { return [] }
            engine.sendPointer(x: max(0, min(fb.width - 1, x)), y: max(0, min(fb.height - 1, y)), buttons: buttons)
            return engine.takeOutput()
        }
        if !out.isEmpty { try? sendLocked(out) }
    }

    /// Key event (main thread); `xtKeycode` is used when the server takes QEMU Extended Key Events.
    public func sendKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32? = nil) {
        let out: [UInt8] = lock.withLock { engine.sendKey(keysym, down: down, xtKeycode: xtKeycode); return engine.takeOutput() }
        if !out.isEmpty { try? sendLocked(out) }
    }
}
