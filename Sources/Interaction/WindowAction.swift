import RFB

/// What the window has to do after an input (the controller itself only talks to its sink).
public enum WindowAction: Equatable, Sendable {
    /// Something drawn changed (menu, pan): present again.
    case redraw
    /// `ui.softCursorShown` changed: the system cursor is chosen again.
    case softCursorChanged
    case toggleFullscreen
    case setScaling(ScalingMode)
    /// The menu opened or closed (the window shows the local arrow cursor over it).
    case menuChanged
    /// Disconnect chosen in the menu.
    case disconnect
    /// Close the window (after a disconnect the user dismissed the message).
    case quit
    /// While waiting to reconnect: try now instead of at the end of the countdown.
    case retryNow
    /// After the connection ended (--on-disconnect prompt): connect again.
    case reconnect
    /// The on-screen keyboard appeared or went away: the desktop area changes.
    case keyboardChanged
    /// The screen picker opened, closed or changed its highlight.
    case pickerChanged
    /// Show this remote screen (or all of them).
    case chooseMonitor(MonitorChoice)
    /// The next or previous remote screen, without the picker.
    case cycleMonitor(forward: Bool)
    /// A PNG of what is shown (menu or Ctrl+Alt+S).
    case screenshot
    /// Start or stop recording the session (menu or Ctrl+Alt+R).
    case toggleRecording
    /// xvp: shut down, reboot or reset the remote machine (menu).
    case power(XvpAction)
    /// QEMU's sound on or off (menu).
    case toggleAudio
    /// The connection-info panel on or off (menu or Ctrl+Alt+I).
    case toggleInfo
    /// The kiosk's PIN pad: the window logs it and, after a PIN was checked, saves the controller's
    /// `pin.lockout` in the kiosk's state directory.
    case pin(PinEvent)
    /// A line for the `-v` log (a keymap taken or refused).
    case log(String)
}

/// What happened on the PIN pad.
public enum PinEvent: Equatable, Sendable {
    /// The pad came up while wrong PINs still lock it.
    case openedLocked(seconds: Double, failures: Int)
    /// A wrong PIN; `lockSeconds` > 0 when it locked the pad.
    case rejected(failures: Int, lockSeconds: Double)
    /// The right PIN: the menu opened.
    case accepted
}
