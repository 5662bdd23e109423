import CSDL2
import Interaction

/// The mouse: over the UI, `ViewerUI` decides; over the desktop, RFB pointer events.
extension InputRouter {
    /// The on-screen keyboard's holder id for the mouse (finger ids are SDL's, not negative).
    static let mouseKeyID: Int64 = -1
    /// SDL's id for mouse events made from touches.
    static let touchMouseID = UInt32(bitPattern: -1)

    /// A real mouse moved: in trackpad mode the soft cursor jumps to it and hides (the system
    /// cursor is there), so a finger carries on from where the mouse left the pointer.
    func mouseMotion(_ p: ViewPoint) -> [RouterAction] {
        var out: [RouterAction] = []
        if softCursorVisible { softCursorVisible = false; out.append(.redraw) }
        if !menuOpen, touchMode == .trackpad, let fp = viewport.framebufferPixel(atWindow: p) {
            gestures.cursor.set(x: Double(fp.x) + 0.5, y: Double(fp.y) + 0.5,
                                framebufferWidth: viewport.framebufferWidth, height: viewport.framebufferHeight)
        }
        return out + motion(p)
    }

    func motion(_ p: ViewPoint) -> [RouterAction] {
        let r = ui.motion(p)
        guard r == .desktop else { return perform(r) }
        guard !sessionEnded, !viewOnly, let fp = viewport.framebufferPixel(atWindow: p) else { return [] }
        send(fp, buttons)
        return []
    }

    func button(_ b: Int32, down: Bool, at p: ViewPoint) -> [RouterAction] {
        let r = ui.button(left: b == SDL_BUTTON_LEFT, down: down, at: p)
        guard r == .desktop else { return perform(r) }
        // the mouse on the on-screen keyboard (a kiosk may have both)
        if keyboard != nil, b == SDL_BUTTON_LEFT {
            if down, keyboard?.contains(p) == true { return keyboardPress(p, id: InputRouter.mouseKeyID) }
            if !down, var k = keyboard, k.isHolding {
                let evs = k.release(id: InputRouter.mouseKeyID)
                keyboard = k
                if !evs.isEmpty { sendKeyboard(evs); return [.redraw] }
            }
        }
        guard !sessionEnded, !viewOnly else { return [] }
        let bit: UInt16
        switch b {
        case SDL_BUTTON_LEFT: bit = 1
        case SDL_BUTTON_MIDDLE: bit = 2
        case SDL_BUTTON_RIGHT: bit = 4
        case SDL_BUTTON_X1: bit = 1 << 7   // back: button 8
        case SDL_BUTTON_X2: bit = 1 << 8   // forward: button 9 (reaches servers with ExtendedMouseButtons)
        default: return []
        }
        if down {
            guard let fp = viewport.framebufferPixel(atWindow: p) else { return [] }
            buttons |= bit
            send(fp, buttons)
        } else {
            guard buttons & bit != 0 else { return [] }
            buttons &= ~bit
            // released over a bar: release where the pointer last was on the desktop
            if let fp = viewport.framebufferPixel(atWindow: p) ?? lastSent { send(fp, buttons) }
        }
        return []
    }

    func wheel(dx: Int, dy: Int, at p: ViewPoint) -> [RouterAction] {
        let r = ui.wheel(dy: dy)
        guard r == .desktop else { return perform(r) }
        if ctrlAltHeld && viewport.canScroll {
            // wheel up scrolls towards the top, as in any scrolled view
            var sx = Double(dx), sy = Double(-dy)
            if shiftHeld && dx == 0 { sx = sy; sy = 0 }
            return viewport.scroll(dx: sx * InputRouter.panStep, dy: sy * InputRouter.panStep) ? [.redraw] : []
        }
        guard !sessionEnded, !viewOnly, let fp = viewport.framebufferPixel(atWindow: p) else { return [] }
        var bits: [(UInt16, Int)] = []
        if dy > 0 { bits.append((8, dy)) } else if dy < 0 { bits.append((16, -dy)) }
        if dx < 0 { bits.append((32, -dx)) } else if dx > 0 { bits.append((64, dx)) }
        for (b, n) in bits {
            for _ in 0..<min(n, InputRouter.maxNotches) {
                send(fp, buttons | b)
                send(fp, buttons)
            }
        }
        return []
    }

    func send(_ p: (x: Int, y: Int), _ mask: UInt16) {
        lastSent = p
        // a mouse and a finger at once (a kiosk may have both): the server sees both held
        sink?.sendPointer(x: p.x, y: p.y, buttons: mask | gestures.buttons)
    }
}
