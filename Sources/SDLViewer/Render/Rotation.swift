import CSDL2

/// `--rotate 90|180|270` (a touch panel mounted portrait): everything is drawn as usual into a
/// texture the size of the rotated display, which is then turned onto the screen; pointer and
/// touch coordinates are turned back before anything else sees them. The viewport, overlays and
/// gestures never know. Owns the target texture; main thread only.
final class Rotation {
    /// Degrees clockwise: 90, 180 or 270.
    let degrees: Int
    private var target: OpaquePointer?

    init(degrees: Int) { self.degrees = degrees }
    deinit { free() }

    var swapsAxes: Bool { degrees == 90 || degrees == 270 }

    /// Draws go to the target texture, (re)made at the rotated output size `ow`x`oh`.
    func begin(_ renderer: OpaquePointer, outputWidth ow: Int32, outputHeight oh: Int32) {
        if let t = target {
            var w: Int32 = 0, h: Int32 = 0
            SDL_QueryTexture(t, nil, nil, &w, &h)
            if w != ow || h != oh {
                SDL_DestroyTexture(t)
                target = nil
            }
        }
        if target == nil {
            target = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ARGB8888.rawValue,
                                       Int32(SDL_TEXTUREACCESS_TARGET.rawValue), max(1, ow), max(1, oh))
        }
        SDL_SetRenderTarget(renderer, target)
    }

    /// The drawn frame onto the screen, turned clockwise by `degrees` about its centre.
    func end(_ renderer: OpaquePointer) {
        guard let t = target else { return }
        SDL_SetRenderTarget(renderer, nil)
        var ow: Int32 = 0, oh: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &ow, &oh)
        var tw: Int32 = 0, th: Int32 = 0
        SDL_QueryTexture(t, nil, nil, &tw, &th)
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        var dst = SDL_Rect(x: (ow - tw) / 2, y: (oh - th) / 2, w: tw, h: th)
        SDL_RenderCopyEx(renderer, t, nil, &dst, Double(degrees), nil, SDL_FLIP_NONE)
    }

    /// Before the renderer goes: the texture belongs to it.
    func free() {
        if let t = target { SDL_DestroyTexture(t) }
        target = nil
    }

    /// Turns an event's coordinates from the screen's (a `w`x`h` window) to the drawn frame's.
    func unrotate(_ e: inout SDL_Event, windowWidth w: Int32, windowHeight h: Int32) {
        let rotation = degrees
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
