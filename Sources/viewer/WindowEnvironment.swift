import Foundation
import SDLViewer
import VNCSession

/// The environment variables that concern the window, read here (the command line) and handed
/// down in the configuration: nothing in SDLViewer reads the environment.
extension ViewerConfiguration {
    /// A configuration holding what the environment says: `SDL_RENDER_DRIVER` (SDL's own
    /// variable; the window chooses its drawing path by it), `FARCAST_FONT`,
    /// `FARCAST_TOUCH_REPLAY`, `FARCAST_TRACE=1`, and the XDG pictures and videos folders.
    static func fromEnvironment(_ env: [String: String] = ViewerEnvironment.variables) -> ViewerConfiguration {
        var c = ViewerConfiguration()
        c.renderDriver = env["SDL_RENDER_DRIVER"]
        c.fontPath = env["FARCAST_FONT"]
        c.touchReplayPath = env["FARCAST_TOUCH_REPLAY"]
        c.trace = env["FARCAST_TRACE"] == "1"
        c.picturesDirectory = UserDirectories.path("PICTURES", env: env)
        c.videosDirectory = UserDirectories.path("VIDEOS", env: env)
        return c
    }
}

/// Before a window's SDL_Init: SDL_VIDEODRIVER, WAYLAND_DISPLAY and DISPLAY decide the driver
/// (VideoDriverChoice); a Wayland compositor without a seat falls back to X11 or stops here with
/// a message instead of SDL's SIGSEGV. Always said on stderr: it is not the driver asked for.
func prepareVideoDriver(_ env: [String: String] = ViewerEnvironment.variables) {
    let e = VideoDriverChoice.Environment(sdlVideoDriver: env["SDL_VIDEODRIVER"], waylandDisplay: env["WAYLAND_DISPLAY"],
                                          display: env["DISPLAY"])
    if let message = VideoDriverChoice.prepare(e, log: { say($0) }) { die(message) }
}
