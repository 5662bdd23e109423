import ArgumentParser
import Foundation
import Interaction
import SDLViewer
import VNCSession

struct KioskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: "Run as a kiosk from a config file (the farcast-kiosk systemd unit): full screen, reconnecting for ever, no dialog that needs a keyboard, the menu locked or behind a PIN, systemd's watchdog fed.")

    @Option(help: "The kiosk's config file.")
    var config: String = KioskConfig.defaultPath

    @Flag(name: .shortAndLong, help: "Print progress to stderr (the journal, under systemd).")
    var verbose = false

    func run() throws {
        let c: KioskConfig
        do { c = try KioskConfig.load(path: config) } catch { die("\(error)", code: 2) }
        // state (remembered keys, the screen chosen) in the unit's StateDirectory when it has one
        if let state = ViewerEnvironment.variables["STATE_DIRECTORY"]?.split(separator: ":").first {
            setenv("XDG_CONFIG_HOME", String(state), 1)
            setenv("XDG_STATE_HOME", String(state), 1)
        }
        if let u = c.username { setenv("VNC_USERNAME", u, 1) }
        var args = [c.host, "--fullscreen", "--on-disconnect", "reconnect", "--reconnect", "always",
                    // nobody can answer a question: a key seen first is remembered, a changed one refused
                    "--trust-new-certificate", "--scale", c.scale]
        if let f = c.passwordFile { args += ["--password-file", f] }
        if let s = c.security { args += ["--security", s] }
        if c.input == "trackpad" { args.append("--trackpad") }
        if let m = c.monitor { args += ["--monitor", "\(m)"] }
        if let q = c.quality { args += ["--quality", "\(q)"] }
        // naming the encodings leaves the quality unset: Tight without JPEG
        if c.lossless { args += ["--encodings", "tight,zrle,hextile,zlib,corre,rre,copyrect,raw"] }
        if c.rotate != 0 { args += ["--rotate", "\(c.rotate)"] }
        if c.onScreenKeyboard { args.append("--on-screen-keyboard") }
        if c.viewOnly { args.append("--view-only") }
        args += ["--recording-max-size", "\(c.recordingMaxBytes)"]
        if verbose { args.append("-v") }
        let view: ViewCommand
        do {
            view = try ViewCommand.parse(args)
        } catch {
            die("\(config): \(ViewCommand.message(for: error))", code: 2)
        }
        var k = KioskOptions()
        k.menuLock = c.menu
        // offered only when kiosk.conf says so (and the menu's lock lets them)
        k.screenshots = c.screenshots
        k.recording = c.recording
        // wrong PINs counted across restarts, next to known_hosts in the state directory
        k.pinFailures = PinFailureFile.standard(environment: ViewerEnvironment.variables)
        k.holdsConsole = true
        k.notifier = SystemdNotifier(environment: ViewerEnvironment.variables)
        k.hideCursor = true
        view.runWindow(kiosk: k)
    }
}
