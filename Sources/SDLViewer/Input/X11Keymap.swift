import CXCB
import Foundation
import Interaction

/// The X server's own keymap, as xkb text for the key translator (xkbcommon-x11, on a
/// connection of our own to $DISPLAY, the display SDL opened). Keys then mean what the X server
/// says they mean, whoever wrote its keymap: setxkbmap, a desktop's layout switcher, or XWayland
/// passing on its compositor's keymap, a virtual or on-screen keyboard's made-up one included
/// (whose key codes are slots, not positions, so no layout name describes them). Read at start
/// and again on each change (MappingNotify, which SDL reports as SDL_KEYMAPCHANGED).
enum X11Keymap {
    /// The core keyboard's keymap as text and the server's locks and layout group of the moment
    /// (what a layout switcher set: no key of ours gave it), or why there is none (no X server,
    /// no XKB).
    static func read() -> Result<(text: String, state: ModifierMasks), KeymapReadError> {
        var screen: Int32 = 0
        guard let c = xcb_connect(nil, &screen), xcb_connection_has_error(c) == 0 else {
            return .failure(KeymapReadError("cannot connect to the X server"))
        }
        defer { xcb_disconnect(c) }
        guard xkb_x11_setup_xkb_extension(c, UInt16(XKB_X11_MIN_MAJOR_XKB_VERSION), UInt16(XKB_X11_MIN_MINOR_XKB_VERSION),
                                          XKB_X11_SETUP_XKB_EXTENSION_NO_FLAGS, nil, nil, nil, nil) == 1 else {
            return .failure(KeymapReadError("the X server has no XKB extension"))
        }
        let device = xkb_x11_get_core_keyboard_device_id(c)
        guard device >= 0 else { return .failure(KeymapReadError("the X server names no core keyboard")) }
        // no include paths: a keymap from the server is complete in itself
        guard let ctx = xkb_context_new(XKB_CONTEXT_NO_DEFAULT_INCLUDES) else {
            return .failure(KeymapReadError("xkbcommon: cannot create a context"))
        }
        defer { xkb_context_unref(ctx) }
        guard let km = xkb_x11_keymap_new_from_device(ctx, c, device, XKB_KEYMAP_COMPILE_NO_FLAGS) else {
            return .failure(KeymapReadError("the X server's keymap could not be read"))
        }
        defer { xkb_keymap_unref(km) }
        guard let text = xkb_keymap_get_as_string(km, XKB_KEYMAP_FORMAT_TEXT_V1) else {
            return .failure(KeymapReadError("the X server's keymap could not be written as text"))
        }
        defer { free(text) }
        // only locks and the group: a modifier held now was pressed outside the window, and
        // the remote side never saw it pressed (real modifiers only: the same bits in any keymap)
        var state = ModifierMasks()
        if let st = xkb_x11_state_new_from_device(km, c, device) {
            state.locked = xkb_state_serialize_mods(st, XKB_STATE_MODS_LOCKED) & 0xff
            state.layout = xkb_state_serialize_layout(st, XKB_STATE_LAYOUT_EFFECTIVE)
            xkb_state_unref(st)
        }
        return .success((String(cString: text), state))
    }

    struct KeymapReadError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}
