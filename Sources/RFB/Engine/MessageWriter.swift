/// Client messages: update requests, input, SetDesktopSize, clipboard.
extension ClientEngine {
    // MARK: client messages

    /// SetEncodings with the settings' list; what it offers may be decoded from now on.
    func sendEncodings() {
        let list = settings.encodingList
        offeredEncodings.formUnion(list)
        output += ClientMessage.setEncodings(list)
    }

    /// Update request for `rect` (default: the whole framebuffer). A non-incremental request must
    /// be answered, which makes a 1x1 one a cheap liveness probe.
    public func requestUpdate(incremental: Bool = true, rect: Rect? = nil) {
        // the size the server last set, even while its resize is not made yet (DesktopResize.swift)
        guard let bounds = desktopBounds else { return }
        counters.requests += 1
        if flow.continuousUpdates && incremental { counters.requestsWhileContinuous += 1 }
        ClientMessage.updateRequest(incremental: incremental, (rect ?? bounds).intersection(bounds), into: &output)
    }

    /// `buttons`: bit n is button n+1; buttons 8/9 go out only as the server can take them.
    public func sendPointer(x: Int, y: Int, buttons: UInt16) {
        guard phase == .normal else { return }
        // button 9 has no classic bit: without the extension it is not sent
        let mask = extendedMouseButtons ? buttons : buttons & 0xff
        ClientMessage.pointerEvent(x: x, y: y, buttons: mask, extended: extendedMouseButtons, into: &output)
    }

    /// A key press or release. `xtKeycode` (XT scancode, 0xE0xx for extended keys) goes along when
    /// the server takes QEMU Extended Key Events; otherwise only the keysym is sent.
    public func sendKey(_ keysym: UInt32, down: Bool, xtKeycode: UInt32? = nil) {
        guard phase == .normal else { return }
        if qemuKeyEvents, let code = xtKeycode {
            output += ClientMessage.qemuKeyEvent(keysym: keysym, keycode: code, down: down)
        } else {
            output += ClientMessage.keyEvent(keysym: keysym, down: down)
        }
    }

    /// SetDesktopSize: asks the server for a `width`x`height` framebuffer with these screens
    /// (default: one screen covering it, keeping the current first screen's id). The answer
    /// arrives as `.desktopSizeRequestResult`. Throws, sending nothing, when the server has not
    /// shown support (no ExtendedDesktopSize yet) or the layout is invalid.
    public func requestDesktopSize(width: Int, height: Int, screens: [Screen]? = nil) throws {
        guard phase == .normal else { throw DesktopSizeRequestError("the server does not support changing its desktop size (it has sent no ExtendedDesktopSize)") }
        let list = try ClientEngine.desktopSizeScreens(width: width, height: height, screens: screens,
                                                       supported: supportsSetDesktopSize, current: screenLayout)
        output += ClientMessage.setDesktopSize(width: width, height: height, screens: list)
    }

    /// The screens a SetDesktopSize for `width`x`height` carries (default: one screen covering
    /// it, keeping the current first screen's id), or why it cannot be asked: the server has
    /// not shown support (no ExtendedDesktopSize yet) or the layout is invalid. Any thread.
    public static func desktopSizeScreens(width: Int, height: Int, screens: [Screen]?,
                                          supported: Bool, current: ScreenLayout?) throws -> [Screen] {
        guard supported else {
            throw DesktopSizeRequestError("the server does not support changing its desktop size (it has sent no ExtendedDesktopSize)")
        }
        guard width > 0, height > 0, width <= min(Limits.maxFramebufferDimension, 65535),
              height <= min(Limits.maxFramebufferDimension, 65535), width * height <= Limits.maxFramebufferPixels else {
            throw DesktopSizeRequestError("cannot request a \(width)x\(height) desktop: sizes go from 1 to \(Limits.maxFramebufferDimension) and up to \(Limits.maxFramebufferPixels / (1024 * 1024)) Mpixel")
        }
        let list = screens ?? [Screen(id: current?.screens.first?.id ?? 0, x: 0, y: 0, width: width, height: height,
                                      flags: current?.screens.first?.flags ?? 0)]
        if let problem = ScreenLayout(width: width, height: height, screens: list).problem() {
            throw DesktopSizeRequestError("the requested layout \(problem)")
        }
        return list
    }

    /// Local clipboard text for the server: Extended Clipboard (UTF-8; Notify, then Provide on
    /// the server's Request) when the server announced it, else classic cut text, where
    /// characters Latin-1 cannot carry are left out; returns how many were.
    @discardableResult
    public func sendCutText(_ text: String) -> Int {
        sendCutText(OutgoingCutText(text, limit: clipboard.limit))
    }

    /// The same with the conversion and compression already done (see `OutgoingCutText`).
    @discardableResult
    public func sendCutText(_ prepared: OutgoingCutText) -> Int {
        guard phase == .normal else { return 0 }
        let c = prepared.limit == clipboard.limit ? prepared : OutgoingCutText(prepared.text, limit: clipboard.limit)
        // LibVNCServer (x11vnc 0.9.16) announces the Extended Clipboard without Notify but
        // drops provided text unless the application hooked setXCutTextUTF8, which x11vnc does
        // not: to such a server the classic message goes first, then the Provide, so a server
        // that takes both ends with the UTF-8 text.
        if clipboard.active && clipboard.serverActions.contains(.notify) {
            clipboard.localChanged(c, out: &output, events: &events)
            return 0
        }
        guard c.utf8Count <= clipboard.limit else {
            if clipboard.active { clipboard.localChanged(c, out: &output, events: &events) }
            else { events.append(.cutTextNotSent(length: c.utf8Count, limit: clipboard.limit)) }
            return 0
        }
        defer {
            // over the size the server takes unsolicited the classic message alone carries it
            if clipboard.active && c.wireCount <= clipboard.serverTextLimit {
                clipboard.localChanged(c, out: &output, events: &events)
            }
        }
        output += ClientMessage.clientCutText(latin1: c.latin1)
        return c.dropped
    }

}
