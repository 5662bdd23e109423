import Interaction
import VNCSession

/// The window's screen choices go to VNCSession's file (which knows no `MonitorChoice`: the
/// store does not depend on the module that defines the picker).
extension MonitorMemory: MonitorChoiceMemory {
    public func rememberedChoice(for host: String) -> MonitorChoice? {
        choice(for: host).map {
            switch $0 {
            case .all: return .all
            case .screen(let id): return .screen(id: id)
            }
        }
    }

    public func rememberChoice(_ c: MonitorChoice, for host: String) throws {
        switch c {
        case .all: try remember(.all, for: host)
        case .screen(let id): try remember(.screen(id: id), for: host)
        }
    }
}
