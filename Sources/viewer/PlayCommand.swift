import ArgumentParser
import FarcastTools
import Foundation
import Interaction
import RFB
import SDLViewer
import VNCSession

struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play an FBS recording in the window at its recorded pace: Space pauses, ←/→ seek 5 s, Home/End, ↑/↓ speed (0.25x to 8x), L loops, the timeline seeks by click, drag or tap; zoom, screens and screenshots work as live.")

    @Argument(help: "An FBS 001.000 recording (viewer record, the menu's recording, rfbproxy, vncrec).")
    var file: String

    @Option(help: "Playback speed: 0.25, 0.5, 1, 2, 4 or 8.", transform: Parse.speed)
    var speed: Double = 1

    @Flag(help: "Start again at the end (a kiosk's demo loop; L toggles).")
    var loop = false

    @Flag(help: "Start paused (Space plays).")
    var paused = false

    @Flag(help: "Start in full screen (F11 toggles).")
    var fullscreen = false

    @Option(help: "Scaling: fit, 1:1, or a zoom such as 200%.", transform: Parse.scaling)
    var scale: ScalingMode = .fit

    @Flag(name: .shortAndLong, help: "Print progress to stderr.")
    var verbose = false

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else { die("cannot read \(file)") }
        let rec: RecordedStream
        do { rec = try RecordedStream(fbs: [UInt8](data)) } catch { die("\(file): \(error)") }
        guard !rec.blockEnds.isEmpty else { die("\(file) holds no recorded data") }
        let name = (file as NSString).lastPathComponent
        let player = Player(recording: rec, name: name)
        player.loop = loop
        player.clock.setSpeed(speed)
        if paused { player.clock.setPaused(true) }
        if verbose { player.session.log = { say($0) } }
        var c = ViewerConfiguration.fromEnvironment()
        c.fullscreen = fullscreen
        c.viewOnly = true
        c.scaling = scale
        c.player = player
        c.clipboardDirection = .off
        prepareVideoDriver()
        let w = ViewerWindow(session: player.session, configuration: c)
        do { _ = try w.run() } catch { die("\(error)") }
    }
}
