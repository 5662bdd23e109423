import CSDL2

/// `--rotate 90|180|270` (a touch panel mounted portrait): everything is drawn as usual into a
/// texture the size of the rotated display, which is then turned onto the screen; pointer and
/// touch coordinates are turned back before anything else sees them. The viewport, overlays and
/// gestures never know.
extension ViewerWindow {
    var swapsAxes: Bool { rotation == 90 || rotation == 270 }

    /// The window's size in points and pixels as the rest of the window sees it (rotated).
    func logicalSizes() -> (ww: Int32, wh: Int32, ow: Int32, oh: Int32) {
        var ww: Int32 = 0, wh: Int32 = 0, ow: Int32 = 0, oh: Int32 = 0
        if let window { SDL_GetWindowSize(window, &ww, &wh) }
        if let renderer { SDL_GetRendererOutputSize(renderer, &ow, &oh) }
        return swapsAxes ? (wh, ww, oh, ow) : (ww, wh, ow, oh)
    }

    /// The texture frames are drawn into, (re)made at the rotated output size.
    func ensureRotationTarget() {
        guard rotation != 0, let renderer else { return }
        let s = logicalSizes()
        if let t = rotationTarget {
            var w: Int32 = 0, h: Int32 = 0
            SDL_QueryTexture(t, nil, nil, &w, &h)
            if w == s.ow && h == s.oh { return }
            SDL_DestroyTexture(t)
        }
        rotationTarget = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ARGB8888.rawValue,
                                           Int32(SDL_TEXTUREACCESS_TARGET.rawValue), max(1, s.ow), max(1, s.oh))
    }

    func beginRotatedFrame() {
        guard rotation != 0, let renderer else { return }
        ensureRotationTarget()
        SDL_SetRenderTarget(renderer, rotationTarget)
    }

    /// The drawn frame onto the screen, turned clockwise by `rotation` about its centre.
    func endRotatedFrame() {
        guard rotation != 0, let renderer, let t = rotationTarget else { return }
        SDL_SetRenderTarget(renderer, nil)
        var ow: Int32 = 0, oh: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &ow, &oh)
        var tw: Int32 = 0, th: Int32 = 0
        SDL_QueryTexture(t, nil, nil, &tw, &th)
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        var dst = SDL_Rect(x: (ow - tw) / 2, y: (oh - th) / 2, w: tw, h: th)
        SDL_RenderCopyEx(renderer, t, nil, &dst, Double(rotation), nil, SDL_FLIP_NONE)
    }

    func freeRotationTarget() {
        if let t = rotationTarget { SDL_DestroyTexture(t) }
        rotationTarget = nil
    }

    /// Turns an event's coordinates from the screen's to the drawn frame's.
    func unrotate(_ e: inout SDL_Event) {
        guard rotation != 0, let window else { return }
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetWindowSize(window, &w, &h)
        func point(_ x: Int32, _ y: Int32) -> (Int32, Int32) {
            switch rotation {
            case 90: return (y, w - 1 - x)
            case 180: return (w - 1 - x, h - 1 - y)
            default: return (h - 1 - y, x)
            }
        }
        func unit(_ x: Float, _ y: Float) -> (Float, Float) {
            switch rotation {
            case 90: return (y, 1 - x)
            case 180: return (1 - x, 1 - y)
            default: return (1 - y, x)
            }
        }
        switch e.type {
        case SDL_MOUSEMOTION.rawValue:
            (e.motion.x, e.motion.y) = point(e.motion.x, e.motion.y)
            let (dx, dy) = (e.motion.xrel, e.motion.yrel)
            switch rotation {
            case 90: (e.motion.xrel, e.motion.yrel) = (dy, -dx)
            case 180: (e.motion.xrel, e.motion.yrel) = (-dx, -dy)
            default: (e.motion.xrel, e.motion.yrel) = (-dy, dx)
            }
        case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue:
            (e.button.x, e.button.y) = point(e.button.x, e.button.y)
        case SDL_MOUSEWHEEL.rawValue:
            (e.wheel.mouseX, e.wheel.mouseY) = point(e.wheel.mouseX, e.wheel.mouseY)
        case SDL_FINGERDOWN.rawValue, SDL_FINGERMOTION.rawValue, SDL_FINGERUP.rawValue:
            (e.tfinger.x, e.tfinger.y) = unit(e.tfinger.x, e.tfinger.y)
            let (dx, dy) = (e.tfinger.dx, e.tfinger.dy)
            switch rotation {
            case 90: (e.tfinger.dx, e.tfinger.dy) = (dy, -dx)
            case 180: (e.tfinger.dx, e.tfinger.dy) = (-dx, -dy)
            default: (e.tfinger.dx, e.tfinger.dy) = (-dy, dx)
            }
        default: break
        }
    }
}
