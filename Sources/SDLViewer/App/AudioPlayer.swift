import CSDL2
import RFB

/// QEMU's audio through SDL: 16-bit stereo 44.1 kHz as asked of the server, queued with at
/// most a quarter second waiting (older sound is dropped rather than heard late). Main thread.
final class AudioPlayer {
    private var device: SDL_AudioDeviceID = 0
    static let maxQueuedBytes: UInt32 = 44100 * 4 / 4
    private(set) var failure: String?
    private var failureTaken = false

    /// Opens the device on the stream's first data; false (with `failure`) when there is none.
    private func open() -> Bool {
        if device != 0 { return true }
        if SDL_WasInit(SDL_INIT_AUDIO) == 0 && SDL_InitSubSystem(SDL_INIT_AUDIO) != 0 {
            failure = "no audio: \(String(cString: SDL_GetError()))"
            return false
        }
        var want = SDL_AudioSpec()
        want.freq = 44100
        want.format = SDL_AudioFormat(AUDIO_S16LSB)
        want.channels = 2
        want.samples = 1024
        device = SDL_OpenAudioDevice(nil, 0, &want, nil, 0)
        if device == 0 { failure = "no audio device: \(String(cString: SDL_GetError()))"; return false }
        SDL_PauseAudioDevice(device, 0)
        return true
    }

    func play(_ samples: [UInt8]) {
        guard open() else { return }
        if SDL_GetQueuedAudioSize(device) > AudioPlayer.maxQueuedBytes { SDL_ClearQueuedAudio(device) }
        samples.withUnsafeBytes { b in _ = SDL_QueueAudio(device, b.baseAddress, UInt32(b.count)) }
    }

    func stop() {
        if device != 0 { SDL_CloseAudioDevice(device) }
        device = 0
    }

    /// The failure, once: the window tells the user the first time only.
    func takeFailure() -> String? {
        guard let failure, !failureTaken else { return nil }
        failureTaken = true
        return failure
    }

    var queuedBytes: UInt32 { device == 0 ? 0 : SDL_GetQueuedAudioSize(device) }
}
