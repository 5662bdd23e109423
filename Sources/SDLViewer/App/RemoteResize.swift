import CSDL2
import RFB

/// `--remote-resize` bookkeeping: the server's desktop follows the window, one request once the
/// window has been still for a moment, none repeated while its answer is out.
struct RemoteResize {
    /// The request waits until this time (seconds, `ViewerWindow.now()`).
    var due: Double?
    var lastRequested: (w: Int, h: Int)?
    /// A SetDesktopSize is out and its answer has not come yet.
    var answerPending = false
    /// The local displays the window spans with `--display all` (bounds in desktop points).
    var spannedDisplays: [SDL_Rect] = []
    static let debounce = 0.5

    /// What to ask for the window's desktop area (output pixels), one screen per spanned local
    /// display; nil when nothing would change or it was asked already.
    mutating func request(output: (w: Int, h: Int), pixelsPerPoint: (x: Double, y: Double),
                          current: ScreenLayout?) -> (width: Int, height: Int, screens: [RFB.Screen]?)? {
        let (w, h) = output
        guard w > 0, h > 0 else { return nil }
        var screens: [RFB.Screen]? = nil
        if spannedDisplays.count > 1 {
            // one remote screen per local display, placed as they are (pixels per point applied)
            let u = RemoteResize.union(spannedDisplays)
            let sx = pixelsPerPoint.x, sy = pixelsPerPoint.y
            let ids = (current?.screens.map(\.id) ?? []) + (0..<UInt32(spannedDisplays.count)).map { 0x1000 + $0 }
            screens = spannedDisplays.enumerated().map { i, b in
                RFB.Screen(id: ids[i], x: Int((Double(b.x - u.x) * sx).rounded()), y: Int((Double(b.y - u.y) * sy).rounded()),
                           width: Int((Double(b.w) * sx).rounded()), height: Int((Double(b.h) * sy).rounded()))
            }
        }
        if screens == nil, let c = current, c.width == w, c.height == h, c.screens.count == 1 { return nil }
        // asked already: done, or the answer is still on its way
        if let last = lastRequested, last == (w, h), screens == nil,
           answerPending || (current?.width == w && current?.height == h) { return nil }
        lastRequested = (w, h)
        return (w, h, screens)
    }

    /// The local displays' bounds (SDL's desktop coordinates).
    static func displayBounds() -> [SDL_Rect] {
        (0..<max(0, SDL_GetNumVideoDisplays())).compactMap { i in
            var r = SDL_Rect()
            return SDL_GetDisplayBounds(i, &r) == 0 ? r : nil
        }
    }

    static func union(_ rs: [SDL_Rect]) -> SDL_Rect {
        guard let f = rs.first else { return SDL_Rect(x: 0, y: 0, w: 1024, h: 768) }
        var x0 = f.x, y0 = f.y, x1 = f.x + f.w, y1 = f.y + f.h
        for r in rs { x0 = min(x0, r.x); y0 = min(y0, r.y); x1 = max(x1, r.x + r.w); y1 = max(y1, r.y + r.h) }
        return SDL_Rect(x: x0, y: y0, w: x1 - x0, h: y1 - y0)
    }
}
