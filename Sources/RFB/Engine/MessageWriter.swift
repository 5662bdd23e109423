/// Client messages as bytes for the server (TigerVNC's CMsgWriter): written in order into its
/// buffer, which the engine hands to the security channel (if any) and the socket
/// (`ConnectionStreams.flush`). It keeps what our messages asked of the server: the encodings
/// offered and the sound asked for. What to write, and whether the server can take it, is the
/// engine's to decide. Session thread, with the engine.
final class MessageWriter {
    /// Plaintext bytes for the server, not yet flushed.
    var output: [UInt8] = []
    /// `output` holds a secret (`writeSecret`): zeroed once it went through the channel.
    var holdsSecret = false
    /// Every encoding a SetEncodings of this connection offered (rects of an encoding offered
    /// once may still come after a later list left it out).
    private(set) var offeredEncodings: Set<Int32> = []
    /// QEMU audio as asked for (`writeAudio`): ever on this connection, and now.
    private(set) var audio = (asked: false, on: false)

    // MARK: the handshake

    func write(_ bytes: [UInt8]) { output += bytes }

    func write(_ byte: UInt8) { output.append(byte) }

    /// Bytes holding a secret (a VncAuth response, credentials): `bytes` is zeroed once queued,
    /// and the queue once it went out.
    func writeSecret(_ bytes: inout [UInt8]) {
        output += bytes
        VNCAuth.wipe(&bytes)
        holdsSecret = true
    }

    /// The protocol version we speak, "RFB 003.00m\n".
    func writeVersion(minor: Int) { output += Array("RFB 003.00\(minor)\n".utf8) }

    /// ClientInit: whether other viewers may stay connected.
    func writeClientInit(shared: Bool) { output.append(shared ? 1 : 0) }

    // MARK: normal messages

    func writePixelFormat(_ pf: PixelFormat) { output += ClientMessage.setPixelFormat(pf) }

    /// SetEncodings: what it offers may be decoded from now on.
    func writeEncodings(_ list: [Int32]) {
        offeredEncodings.formUnion(list)
        output += ClientMessage.setEncodings(list)
    }

    func writeUpdateRequest(incremental: Bool, _ r: Rect) {
        ClientMessage.updateRequest(incremental: incremental, r, into: &output)
    }

    /// `extended`: the server takes ExtendedMouseButtons (buttons 8 and 9).
    func writePointer(x: Int, y: Int, buttons: UInt16, extended: Bool) {
        ClientMessage.pointerEvent(x: x, y: y, buttons: buttons, extended: extended, into: &output)
    }

    /// A key event; with `xtKeycode` QEMU's extended one (the server takes it).
    func writeKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32?) {
        if let code = xtKeycode {
            output += ClientMessage.qemuKeyEvent(keysym: keysym, keycode: code, down: down)
        } else {
            output += ClientMessage.keyEvent(keysym: keysym, down: down)
        }
    }

    func writeDesktopSize(width: Int, height: Int, screens: [Screen]) {
        output += ClientMessage.setDesktopSize(width: width, height: height, screens: screens)
    }

    /// Classic ClientCutText (Latin-1).
    func writeCutText(latin1: [UInt8]) { output += ClientMessage.clientCutText(latin1: latin1) }

    func writeFence(_ flags: FenceFlags, payload: [UInt8]) {
        output += ClientMessage.fence(flags: flags.rawValue, payload: payload)
    }

    func writeEnableContinuousUpdates(_ on: Bool, _ r: Rect) {
        output += ClientMessage.enableContinuousUpdates(on, r)
    }

    /// xvp (250) version 1: shut down, reboot or reset the machine.
    func writePowerAction(_ a: XvpAction) { output += [250, 0, 1, a.rawValue] }

    /// QEMU audio (255, submessage 1): the format and enable, or disable.
    func writeAudio(enabled: Bool, format: AudioFormat) {
        audio.on = enabled
        if enabled {
            audio.asked = true
            let f = format.frequency
            output += [255, 1, 0, 2, format.sampleFormat, format.channels,
                       UInt8(f >> 24), UInt8(f >> 16 & 0xff), UInt8(f >> 8 & 0xff), UInt8(f & 0xff)]
            output += [255, 1, 0, 0]
        } else {
            output += [255, 1, 0, 1]
        }
    }
}
