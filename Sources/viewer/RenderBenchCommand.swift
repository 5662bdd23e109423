import ArgumentParser
import CSDL2
import Foundation
import Interaction
import RFB
import SDLViewer

/// `viewer render-bench` (hidden): upload + present time per frame for full-frame and small
/// updates at 1080p and 2160p, with the software and the default renderer. A measurement, not a
/// test: run it in a real window (X11, Xvfb or Wayland).
struct RenderBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render-bench",
        abstract: "Measure texture upload + present per frame (ms, median).",
        shouldDisplay: false)

    @Option(help: "Frames per case.")
    var frames: Int = 120

    @Option(help: "Renderers, comma separated: surface (the viewer's software path: window surface, changed rects only), software (SDL's software renderer), default.")
    var renderer: String = "surface,software,default"

    @Option(help: "Sizes, comma separated (WxH).")
    var sizes: String = "1920x1080,3840x2160"

    @Option(help: "Side of the small update in pixels.")
    var small: Int = 64

    func run() throws {
        // as the viewer's software path does (a real shm window surface, not a GPU texture)
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0")
        guard SDL_Init(SDL_INIT_VIDEO) == 0 else { die("SDL_Init: \(String(cString: SDL_GetError()))") }
        defer { SDL_Quit() }
        let wanted = Set(renderer.split(separator: ",").map(String.init))
        let kinds: [(String, UInt32)] = [("surface", 0), ("software", SDL_RENDERER_SOFTWARE.rawValue), ("default", 0)]
            .filter { wanted.contains($0.0) }
        let dims: [(Int, Int)] = sizes.split(separator: ",").compactMap {
            let p = $0.split(separator: "x").compactMap { Int($0) }
            return p.count == 2 && p[0] > 0 && p[1] > 0 ? (p[0], p[1]) : nil
        }
        print("video driver: \(String(cString: SDL_GetCurrentVideoDriver()))")
        for (name, flags) in kinds {
            for (w, h) in dims { bench(name, flags, w, h) }
        }
    }

    func bench(_ name: String, _ flags: UInt32, _ w: Int, _ h: Int) {
        guard let win = SDL_CreateWindow("render-bench", 0, 0, Int32(w), Int32(h), SDL_WINDOW_SHOWN.rawValue) else {
            print("\(name) \(w)x\(h): no window: \(String(cString: SDL_GetError()))"); return
        }
        defer { SDL_DestroyWindow(win) }
        // no vsync: measure the work, not the wait for the display
        let surfaceMode = name == "surface"
        let made = surfaceMode ? SDL_GetWindowSurface(win).flatMap { SDL_CreateSoftwareRenderer($0) } : SDL_CreateRenderer(win, -1, flags)
        guard let r = made else {
            print("\(name) \(w)x\(h): no renderer: \(String(cString: SDL_GetError()))"); return
        }
        defer { SDL_DestroyRenderer(r) }
        var info = SDL_RendererInfo()
        SDL_GetRendererInfo(r, &info)
        let rname = info.name.map { String(cString: $0) } ?? "?"
        var ow: Int32 = 0, oh: Int32 = 0, ww: Int32 = 0, wh: Int32 = 0
        SDL_GetRendererOutputSize(r, &ow, &oh)
        SDL_GetWindowSize(win, &ww, &wh)
        let fb = Framebuffer(width: w, height: h)
        for y in 0..<h { for x in 0..<w { fb.pixels[y * w + x] = UInt32(truncatingIfNeeded: (x &* 7) ^ (y &* 13)) & 0xffffff } }
        var vp = Viewport(mode: .fit)
        vp.resize(framebuffer: w, h, window: Int(ww), Int(wh), output: Int(ow), Int(oh))
        var frameRenderer: FrameRenderer? = FrameRenderer(renderer: r)
        defer { frameRenderer = nil }
        guard let fr = frameRenderer else { return }
        fr.upload(fb)
        fr.draw(vp)
        if surfaceMode { SDL_UpdateWindowSurface(win) } else { SDL_RenderPresent(r) }
        for (label, rect) in [("full", fb.bounds), ("\(small)x\(small)", Rect(x: w / 3, y: h / 3, w: small, h: small))] {
            var up: [Double] = [], drawn: [Double] = [], pres: [Double] = [], total: [Double] = []
            for i in 0..<max(1, frames) {
                var e = SDL_Event()
                while SDL_PollEvent(&e) != 0 {}
                // the "decoder" writes the rect (not timed)
                let v = UInt32(truncatingIfNeeded: i &* 0x010203) & 0xffffff
                for y in rect.y..<rect.maxY { (fb.pixels + y * w + rect.x).update(repeating: v, count: rect.w) }
                fb.addDamage(rect)
                let t0 = DispatchTime.now().uptimeNanoseconds
                fr.upload(fb)
                let t1 = DispatchTime.now().uptimeNanoseconds
                if surfaceMode {
                    // as ViewerWindow.present: redraw and push only the damaged output rects
                    let rects = fr.drawDamage(vp)
                    SDL_RenderFlush(r)
                    drawn.append(Double(DispatchTime.now().uptimeNanoseconds - t1) / 1e6)
                    rects.withUnsafeBufferPointer { _ = SDL_UpdateWindowSurfaceRects(win, $0.baseAddress, Int32($0.count)) }
                } else {
                    fr.draw(vp)
                    SDL_RenderFlush(r)
                    drawn.append(Double(DispatchTime.now().uptimeNanoseconds - t1) / 1e6)
                    SDL_RenderPresent(r)
                }
                let t2 = DispatchTime.now().uptimeNanoseconds
                up.append(Double(t1 - t0) / 1e6); pres.append(Double(t2 - t1) / 1e6); total.append(Double(t2 - t0) / 1e6)
            }
            func median(_ a: [Double]) -> Double { let s = a.sorted(); return s[s.count / 2] }
            print(String(format: "%@ (%@) %dx%d %@ update: %.3f ms per frame (upload %.3f, draw %.3f, draw+present %.3f; median of %d)",
                         name, rname, w, h, label, median(total), median(up), median(drawn), median(pres), total.count))
        }
    }
}
