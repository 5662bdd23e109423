import CSDL2
import Foundation

/// OpenGL drawn by the CPU (Mesa's llvmpipe, as on a machine or VM without a GPU, and under
/// Xvfb) costs more than the window surface: every present rasterises the whole window and
/// copies it out again, where the surface path copies only the changed rows once. On
/// xvnc-tight-q8-desktop the window took 0.47 s of CPU through llvmpipe and 0.30 s on the
/// surface, so the viewer takes the surface there unless SDL_RENDER_DRIVER names a driver.
enum SoftwareGL {
    /// GL_RENDERER of the renderer's OpenGL context; nil when it does not draw through OpenGL.
    /// Main thread, with the renderer's context current (just after SDL_CreateRenderer).
    static func rendererName(_ r: OpaquePointer) -> String? {
        var info = SDL_RendererInfo()
        guard SDL_GetRendererInfo(r, &info) == 0, let n = info.name, String(cString: n).hasPrefix("opengl"),
              let p = SDL_GL_GetProcAddress("glGetString") else { return nil }
        typealias GetString = @convention(c) (UInt32) -> UnsafePointer<UInt8>?
        let glGetString = unsafeBitCast(p, to: GetString.self)
        return glGetString(0x1F01).map { String(cString: $0) }  // GL_RENDERER
    }

    /// Whether the machine has a device OpenGL could draw on: a DRM render node (Mesa's
    /// drivers, DRI3) or NVIDIA's own device. Without one OpenGL can only be drawn by the CPU.
    static func gpuDevicePresent(dri: String = "/dev/dri", dev: String = "/dev") -> Bool {
        let fm = FileManager.default
        if let names = try? fm.contentsOfDirectory(atPath: dri), names.contains(where: { $0.hasPrefix("renderD") }) { return true }
        return fm.fileExists(atPath: dev + "/nvidia0") || fm.fileExists(atPath: dev + "/nvidiactl")
    }

    static func isSoftware(_ glRenderer: String) -> Bool {
        ["llvmpipe", "softpipe", "Software Rasterizer", "swrast", "SWR"].contains { glRenderer.contains($0) }
    }
}
