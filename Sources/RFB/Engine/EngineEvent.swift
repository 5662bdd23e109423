/// Something the engine reports to whoever drives it, in order.
public enum EngineEvent: Equatable, Sendable {
    /// Security negotiated (type), for progress lines.
    case securityChosen(UInt8)
    /// The security type needs credentials the settings do not hold: the engine waits (phase
    /// `.awaitingCredentials`) until `provideCredentials` or `cancelHandshake`.
    case credentialsRequired(CredentialRequest)
    /// A certificate that did not verify, or an RSA-AES key: the engine waits (phase
    /// `.awaitingTrust`) until `answerTrust`.
    case trustRequired(ServerIdentity)
    /// ServerInit arrived; the framebuffer exists.
    case ready(name: String, width: Int, height: Int)
    case updateBegan
    /// A FramebufferUpdate is complete: the framebuffer is coherent.
    case updateEnded(rects: Int)
    case resized(width: Int, height: Int)
    /// ExtendedDesktopSize: the server's screens (after `.resized` when the size changed too).
    case screenLayout(ScreenLayout, reason: DesktopSizeReason)
    /// The server's answer to our SetDesktopSize; `message` is a sentence for the user.
    case desktopSizeRequestResult(status: DesktopSizeStatus, message: String)
    case bell
    /// ServerCutText, converted from ISO 8859-1.
    case cutText(String)
    /// ServerCutText above Limits.maxCutTextLength: skipped as it arrived.
    case cutTextSkipped(length: Int)
    /// Local clipboard text over the cap (ours or the server's announced one): not sent.
    case cutTextNotSent(length: Int, limit: Int)
    /// The server announced the Extended Clipboard: cut text is UTF-8 from now on.
    case extendedClipboardSupported
    case cursor(CursorImage)
    case desktopName(String)
    case colourMapChanged
    /// The server takes QEMU Extended Key Events: `sendKey` now sends key codes too.
    case qemuKeyEventsSupported
    /// The server takes ExtendedMouseButtons: buttons 8 and 9 reach it.
    case extendedMouseButtonsSupported
    /// The server's Caps, Num and Scroll Lock (LED State, VMware LED State).
    case lockLights(LockLights)
    /// QEMU: the guest's pointer is relative (send motion as deltas) or absolute.
    case pointerMode(relative: Bool)
    /// The server moved the pointer (PointerPos, VMware cursor position).
    case pointerMoved(x: Int, y: Int)
    /// xvp: the server can shut down, reboot and reset its machine.
    case powerControl(available: Bool)
    /// xvp: the last power action failed.
    case powerControlFailed
    /// QEMU audio: the stream began, samples in the format asked for, the stream ended.
    case audioBegan
    case audioData([UInt8])
    case audioEnded
    /// Continuous updates began (the server pushes) or ended (back to requests).
    case continuousUpdates(enabled: Bool)
    /// Our round-trip fence came back (`sendRoundTripFence`), with its payload (tag first).
    case fenceReturned([UInt8])
    /// A new pixel format is in force from here on (`changePixelFormat`).
    case pixelFormatChanged(PixelFormat)
}

