import CSDL2
import RFB

/// The system cursors the window shows: the server's shape (a dot when it is empty, like
/// TigerVNC's DotWhenNoCursor), the local arrow, or none while trackpad mode's soft cursor is
/// the pointer. Owns the SDL cursors. Main thread only.
final class Cursors {
    private var remote: OpaquePointer?
    private var remoteEmpty = false
    /// The server sent a cursor shape (until then the local arrow shows).
    private(set) var haveRemote = false
    private var dot: OpaquePointer?
    private var arrow: OpaquePointer?
    /// The server's last shape, for the soft cursor sprite (made later, per renderer).
    private(set) var lastImage: CursorImage?

    /// After SDL_Init.
    func start() { arrow = SDL_CreateSystemCursor(SDL_SYSTEM_CURSOR_ARROW) }

    /// Before SDL_Quit.
    func free() {
        for c in [remote, dot, arrow] { if let c { SDL_FreeCursor(c) } }
        remote = nil; dot = nil; arrow = nil
    }

    enum Choice { case local, remote, hidden }

    func show(_ choice: Choice) {
        if choice == .hidden {
            SDL_ShowCursor(SDL_DISABLE)
            return
        }
        let c: OpaquePointer?
        if choice == .local {
            c = arrow
        } else if remoteEmpty {
            if dot == nil { dot = Cursors.makeDot() }
            c = dot
        } else {
            c = remote
        }
        if let c { SDL_SetCursor(c) }
        SDL_ShowCursor(SDL_ENABLE)
    }

    /// The server's new shape (shown by the next `show`).
    func setRemote(_ c: CursorImage) {
        lastImage = c
        if let old = remote { SDL_FreeCursor(old); remote = nil }
        haveRemote = true
        remoteEmpty = c.isEmpty || c.argb.count < c.width * c.height
        if !remoteEmpty {
            var px = c.argb
            let surf = px.withUnsafeMutableBytes { b in
                SDL_CreateRGBSurfaceWithFormatFrom(b.baseAddress, Int32(c.width), Int32(c.height), 32, Int32(c.width * 4), SDL_PIXELFORMAT_ARGB8888.rawValue)
            }
            if let surf {
                remote = SDL_CreateColorCursor(surf, Int32(c.hotX), Int32(c.hotY))
                SDL_FreeSurface(surf)
            }
            if remote == nil { remoteEmpty = true }
        }
    }

    /// A 5×5 round dot, black with a white rim, hot spot in the middle.
    static let dotPattern = [
        " www ",
        "wbbbw",
        "wbbbw",
        "wbbbw",
        " www ",
    ]

    static func makeDot() -> OpaquePointer? {
        var px: [UInt32] = dotPattern.flatMap { row in
            row.map { ch -> UInt32 in ch == "b" ? 0xff00_0000 : ch == "w" ? 0xffff_ffff : 0 }
        }
        let surf = px.withUnsafeMutableBytes { b in
            SDL_CreateRGBSurfaceWithFormatFrom(b.baseAddress, 5, 5, 32, 20, SDL_PIXELFORMAT_ARGB8888.rawValue)
        }
        guard let surf else { return nil }
        defer { SDL_FreeSurface(surf) }
        return SDL_CreateColorCursor(surf, 2, 2)
    }
}
