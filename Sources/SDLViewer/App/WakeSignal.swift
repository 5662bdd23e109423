import CSDL2
import Synchronization

/// Coalesces wake-ups from the session thread: at most one SDL user event is queued at a time,
/// so the main loop is never more than one frame behind the network.
final class WakeSignal: Sendable {
    let eventType: UInt32
    private let pending = Atomic<Bool>(false)
    init(eventType: UInt32) { self.eventType = eventType }

    /// Any thread. Pushes the event unless one is already waiting.
    func signal() {
        guard pending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        var e = SDL_Event()
        e.type = eventType
        // SDL_PushEvent is thread-safe and wakes SDL_WaitEvent
        if SDL_PushEvent(&e) != 1 { pending.store(false, ordering: .releasing) }
    }

    /// Main thread, before reading what the session has: a wake after this pushes a new event.
    func acknowledge() { pending.store(false, ordering: .releasing) }
}
