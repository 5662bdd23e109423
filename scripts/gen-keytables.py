#!/usr/bin/env python3
"""Generate Sources/Interaction/KeyboardTables.swift.

Two tables:
  1. USB HID keyboard usage (= SDL2 SDL_Scancode value) -> Linux evdev key code
     (the xkb keycode of the evdev rules is evdev + 8).
  2. Linux evdev key code -> XT scancode set 1, as QEMU's Extended Key Event wants it
     (two-byte 0xE0-prefixed codes written as 0xE0xx).

Numbers come from the installed headers, names from the tables below:
  - /usr/include/SDL2/SDL_scancode.h      (SDL_SCANCODE_* = HID usage ids; SDL2 numbering
                                           for the media keys above 0xE7)
  - /usr/include/linux/input-event-codes.h (KEY_* evdev codes)
The name pairs are facts collected from:
  - HID_TO_KEY: the inverse of SDL's src/events/scancodes_linux.h (evdev -> SDL scancode),
    where that is ambiguous or silent, the Linux kernel's hid-input.c hid_keyboard[] table.
  - KEY_TO_XT: QEMU keycodemapdb data/keymaps.csv, column "AT set1 keycode".

Usage:  scripts/gen-keytables.py > Sources/Interaction/KeyboardTables.swift
"""
import re
import sys

SDL_HEADER = "/usr/include/SDL2/SDL_scancode.h"
EVDEV_HEADER = "/usr/include/linux/input-event-codes.h"

# SDL_SCANCODE_<name> -> KEY_<name>
HID_TO_KEY = [(c, c) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"] + [(d, d) for d in "1234567890"] + [
    ("RETURN", "ENTER"), ("ESCAPE", "ESC"), ("BACKSPACE", "BACKSPACE"), ("TAB", "TAB"),
    ("SPACE", "SPACE"), ("MINUS", "MINUS"), ("EQUALS", "EQUAL"),
    ("LEFTBRACKET", "LEFTBRACE"), ("RIGHTBRACKET", "RIGHTBRACE"), ("BACKSLASH", "BACKSLASH"),
    ("NONUSHASH", "BACKSLASH"),  # ISO key left of Enter: same evdev code as backslash
    ("SEMICOLON", "SEMICOLON"), ("APOSTROPHE", "APOSTROPHE"), ("GRAVE", "GRAVE"),
    ("COMMA", "COMMA"), ("PERIOD", "DOT"), ("SLASH", "SLASH"), ("CAPSLOCK", "CAPSLOCK"),
] + [(f"F{i}", f"F{i}") for i in range(1, 25)] + [
    ("PRINTSCREEN", "SYSRQ"), ("SYSREQ", "SYSRQ"), ("SCROLLLOCK", "SCROLLLOCK"), ("PAUSE", "PAUSE"),
    ("INSERT", "INSERT"), ("HOME", "HOME"), ("PAGEUP", "PAGEUP"), ("DELETE", "DELETE"),
    ("END", "END"), ("PAGEDOWN", "PAGEDOWN"), ("RIGHT", "RIGHT"), ("LEFT", "LEFT"),
    ("DOWN", "DOWN"), ("UP", "UP"),
    ("NUMLOCKCLEAR", "NUMLOCK"), ("KP_DIVIDE", "KPSLASH"), ("KP_MULTIPLY", "KPASTERISK"),
    ("KP_MINUS", "KPMINUS"), ("KP_PLUS", "KPPLUS"), ("KP_ENTER", "KPENTER"),
] + [(f"KP_{d}", f"KP{d}") for d in "1234567890"] + [
    ("KP_PERIOD", "KPDOT"), ("NONUSBACKSLASH", "102ND"), ("APPLICATION", "COMPOSE"),
    ("POWER", "POWER"), ("KP_EQUALS", "KPEQUAL"),
    ("EXECUTE", "OPEN"), ("HELP", "HELP"), ("MENU", "MENU"), ("SELECT", "FRONT"),
    ("STOP", "STOP"), ("AGAIN", "AGAIN"), ("UNDO", "UNDO"), ("CUT", "CUT"), ("COPY", "COPY"),
    ("PASTE", "PASTE"), ("FIND", "FIND"), ("MUTE", "MUTE"), ("VOLUMEUP", "VOLUMEUP"),
    ("VOLUMEDOWN", "VOLUMEDOWN"), ("KP_COMMA", "KPCOMMA"),
    ("INTERNATIONAL1", "RO"), ("INTERNATIONAL2", "KATAKANAHIRAGANA"), ("INTERNATIONAL3", "YEN"),
    ("INTERNATIONAL4", "HENKAN"), ("INTERNATIONAL5", "MUHENKAN"), ("INTERNATIONAL6", "KPJPCOMMA"),
    ("LANG1", "HANGEUL"), ("LANG2", "HANJA"), ("LANG3", "KATAKANA"), ("LANG4", "HIRAGANA"),
    ("LANG5", "ZENKAKUHANKAKU"), ("ALTERASE", "ALTERASE"), ("CANCEL", "CANCEL"),
    ("KP_LEFTPAREN", "KPLEFTPAREN"), ("KP_RIGHTPAREN", "KPRIGHTPAREN"),
    ("KP_PLUSMINUS", "KPPLUSMINUS"),
    ("LCTRL", "LEFTCTRL"), ("LSHIFT", "LEFTSHIFT"), ("LALT", "LEFTALT"), ("LGUI", "LEFTMETA"),
    ("RCTRL", "RIGHTCTRL"), ("RSHIFT", "RIGHTSHIFT"), ("RALT", "RIGHTALT"), ("RGUI", "RIGHTMETA"),
    # SDL2-only values above the HID keyboard page (SDL's own numbering).
    ("AUDIONEXT", "NEXTSONG"), ("AUDIOPREV", "PREVIOUSSONG"), ("AUDIOSTOP", "STOPCD"),
    ("AUDIOPLAY", "PLAYPAUSE"), ("AUDIOMUTE", "MUTE"), ("MEDIASELECT", "MEDIA"),
    ("WWW", "WWW"), ("MAIL", "MAIL"), ("CALCULATOR", "CALC"), ("COMPUTER", "COMPUTER"),
    ("AC_SEARCH", "SEARCH"), ("AC_HOME", "HOMEPAGE"), ("AC_BACK", "BACK"),
    ("AC_FORWARD", "FORWARD"), ("AC_STOP", "STOP"), ("AC_REFRESH", "REFRESH"),
    ("AC_BOOKMARKS", "BOOKMARKS"), ("BRIGHTNESSDOWN", "BRIGHTNESSDOWN"),
    ("BRIGHTNESSUP", "BRIGHTNESSUP"), ("DISPLAYSWITCH", "SWITCHVIDEOMODE"),
    ("KBDILLUMTOGGLE", "KBDILLUMTOGGLE"), ("KBDILLUMDOWN", "KBDILLUMDOWN"),
    ("KBDILLUMUP", "KBDILLUMUP"), ("EJECT", "EJECTCD"), ("SLEEP", "SLEEP"),
    ("APP1", "PROG1"), ("APP2", "PROG2"), ("AUDIOREWIND", "REWIND"),
    ("AUDIOFASTFORWARD", "FASTFORWARD"),
]

# KEY_<name> -> XT set 1 (keymaps.csv "AT set1 keycode"). Codes 1..83 (Esc .. keypad '.')
# are the evdev code itself and are added below.
KEY_TO_XT = {
    "ZENKAKUHANKAKU": 0x76, "102ND": 0x56, "F11": 0x57, "F12": 0x58, "RO": 0x73,
    "KATAKANA": 0x78, "HIRAGANA": 0x77, "HENKAN": 0x79, "KATAKANAHIRAGANA": 0x70,
    "MUHENKAN": 0x7b, "KPJPCOMMA": 0x5c, "KPENTER": 0xe01c, "RIGHTCTRL": 0xe01d,
    "KPSLASH": 0xe035, "SYSRQ": 0x54, "RIGHTALT": 0xe038, "HOME": 0xe047, "UP": 0xe048,
    "PAGEUP": 0xe049, "LEFT": 0xe04b, "RIGHT": 0xe04d, "END": 0xe04f, "DOWN": 0xe050,
    "PAGEDOWN": 0xe051, "INSERT": 0xe052, "DELETE": 0xe053, "MACRO": 0xe06f,
    "MUTE": 0xe020, "VOLUMEDOWN": 0xe02e, "VOLUMEUP": 0xe030, "POWER": 0xe05e,
    "KPEQUAL": 0x59, "KPPLUSMINUS": 0xe04e, "PAUSE": 0xe046, "SCALE": 0xe00b,
    "KPCOMMA": 0x7e, "HANGEUL": 0xf2, "HANJA": 0xf1, "YEN": 0x7d, "LEFTMETA": 0xe05b,
    "RIGHTMETA": 0xe05c, "COMPOSE": 0xe05d, "STOP": 0xe068, "AGAIN": 0xe005,
    "PROPS": 0xe006, "UNDO": 0xe007, "FRONT": 0xe00c, "COPY": 0xe078, "OPEN": 0x64,
    "PASTE": 0x65, "FIND": 0xe041, "CUT": 0xe03c, "HELP": 0xe075, "MENU": 0xe01e,
    "CALC": 0xe021, "SETUP": 0x66, "SLEEP": 0xe05f, "WAKEUP": 0xe063, "FILE": 0x67,
    "SENDFILE": 0x68, "DELETEFILE": 0x69, "XFER": 0xe013, "PROG1": 0xe01f,
    "PROG2": 0xe017, "WWW": 0xe002, "MSDOS": 0x6a, "SCREENLOCK": 0xe012,
    "DIRECTION": 0x6b, "CYCLEWINDOWS": 0xe026, "MAIL": 0xe06c, "BOOKMARKS": 0xe066,
    "COMPUTER": 0xe06b, "BACK": 0xe06a, "FORWARD": 0xe069, "CLOSECD": 0xe023,
    "EJECTCD": 0x6c, "EJECTCLOSECD": 0xe07d, "NEXTSONG": 0xe019, "PLAYPAUSE": 0xe022,
    "PREVIOUSSONG": 0xe010, "STOPCD": 0xe024, "RECORD": 0xe031, "REWIND": 0xe018,
    "PHONE": 0x63, "CONFIG": 0xe001, "HOMEPAGE": 0xe032, "REFRESH": 0xe067,
    "EDIT": 0xe008, "SCROLLUP": 0x75, "SCROLLDOWN": 0xe00f, "KPLEFTPAREN": 0xe076,
    "KPRIGHTPAREN": 0xe07b, "NEW": 0xe009, "REDO": 0xe00a, "F13": 0x5d, "F14": 0x5e,
    "F15": 0x5f, "F16": 0x55, "F17": 0xe003, "F18": 0xe077, "F19": 0xe004, "F20": 0x5a,
    "F21": 0x74, "F22": 0xe079, "F23": 0x6d, "F24": 0x6f, "PLAYCD": 0xe028,
    "PAUSECD": 0xe029, "PROG3": 0xe02b, "PROG4": 0xe02c, "DASHBOARD": 0xe02d,
    "SUSPEND": 0xe025, "CLOSE": 0xe02f, "PLAY": 0xe033, "FASTFORWARD": 0xe034,
    "BASSBOOST": 0xe036, "PRINT": 0xe039, "HP": 0xe03a, "CAMERA": 0xe03b,
    "SOUND": 0xe03d, "QUESTION": 0xe03e, "EMAIL": 0xe03f, "CHAT": 0xe040,
    "SEARCH": 0xe065, "CONNECT": 0xe042, "FINANCE": 0xe043, "SPORT": 0xe044,
    "SHOP": 0xe045, "ALTERASE": 0xe014, "CANCEL": 0xe04a, "BRIGHTNESSDOWN": 0xe04c,
    "BRIGHTNESSUP": 0xe054, "MEDIA": 0xe06d, "SWITCHVIDEOMODE": 0xe056,
    "KBDILLUMTOGGLE": 0xe057, "KBDILLUMDOWN": 0xe058, "KBDILLUMUP": 0xe059,
    "SEND": 0xe05a, "REPLY": 0xe064, "FORWARDMAIL": 0xe00e, "SAVE": 0xe055,
    "DOCUMENTS": 0xe070, "BATTERY": 0xe071, "BLUETOOTH": 0xe072, "WLAN": 0xe073,
    "UWB": 0xe074,
}


def sdl_scancodes():
    vals = {}
    for m in re.finditer(r"SDL_SCANCODE_(\w+)\s*=\s*(\d+)", open(SDL_HEADER).read()):
        vals[m.group(1)] = int(m.group(2))
    return vals


def evdev_codes():
    raw = {}
    for m in re.finditer(r"#define\s+KEY_(\w+)\s+(\S+)", open(EVDEV_HEADER).read()):
        raw[m.group(1)] = m.group(2)
    vals = {}

    def resolve(name, depth=0):
        v = raw.get(name)
        if v is None or depth > 8:
            return None
        if v.startswith("KEY_"):
            return resolve(v[4:], depth + 1)
        try:
            return int(v, 0)
        except ValueError:
            return None
    for name in raw:
        r = resolve(name)
        if r is not None:
            vals[name] = r
    return vals


def main():
    sdl = sdl_scancodes()
    ev = evdev_codes()
    hid = {}
    for s, k in HID_TO_KEY:
        if s not in sdl:
            sys.exit(f"unknown SDL scancode SDL_SCANCODE_{s}")
        if k not in ev:
            sys.exit(f"unknown evdev key KEY_{k}")
        hid.setdefault(sdl[s], (ev[k], s, k))
    xt = {}
    for code in range(1, 84):
        xt[code] = code
    for k, v in KEY_TO_XT.items():
        if k not in ev:
            sys.exit(f"unknown evdev key KEY_{k}")
        xt[ev[k]] = v
    hid_max = max(hid)
    xt_max = max(xt)
    names = {v: k for k, v in reversed(list(ev.items()))}

    out = []
    w = out.append
    w("// GENERATED by scripts/gen-keytables.py -- do not edit by hand.")
    w("//")
    w("// Regenerate:  python3 scripts/gen-keytables.py > Sources/Interaction/KeyboardTables.swift")
    w("// Numbers from /usr/include/SDL2/SDL_scancode.h (SDL2) and /usr/include/linux/input-event-codes.h;")
    w("// name pairs from SDL's src/events/scancodes_linux.h (inverted), the Linux kernel's hid-input.c")
    w("// hid_keyboard[] table, and QEMU keycodemapdb data/keymaps.csv (\"AT set1 keycode\" column).")
    w("")
    w("enum KeyboardTables {")
    w("    /// USB HID usage id (SDL2 `SDL_Scancode`) -> Linux evdev key code; 0 = no key.")
    w("    /// xkb keycode (evdev rules) = evdev + 8.")
    w("    static let hidToEvdev: [UInt16] = [")
    for i in range(hid_max + 1):
        if i in hid:
            code, s, k = hid[i]
            w(f"        {code}, // {i:#05x} {s} -> KEY_{k}")
        else:
            w(f"        0, // {i:#05x}")
    w("    ]")
    w("")
    w("    /// Linux evdev key code -> XT scancode set 1 (0xE0xx for extended keys); 0 = none.")
    w("    static let evdevToXT: [UInt16] = [")
    for i in range(xt_max + 1):
        v = xt.get(i, 0)
        label = f"KEY_{names[i]}" if i in names else ""
        w(f"        {v:#06x}, // {i} {label}".rstrip())
    w("    ]")
    w("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
