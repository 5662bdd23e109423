// Guards in front of four libxkbcommon functions that SDL 2.26's Wayland keyboard code calls
// with arguments libxkbcommon 1.5 does not check (docs/design/wayland-findings.md, 2(c) and 3).
// The viewer executable links this target and exports the four xkb_* names
// (Package.swift: --export-dynamic-symbol), so Debian's libSDL2, which reaches libxkbcommon
// through the process's global symbol lookup, calls these first; each checks and forwards to
// the real function (dlsym RTLD_NEXT). Our own xkb calls pass through unchanged.
#ifndef CXKBGUARD_H
#define CXKBGUARD_H

#include <stdint.h>

/// What a guard changed, one bit each (`farcast_xkb_guard_changes`).
enum {
    FARCAST_XKB_GUARD_LAYOUT = 1,        ///< get_syms_by_level: layout out of range, 0 used
    FARCAST_XKB_GUARD_NULL_KEYMAP = 2,   ///< get_syms_by_level / key_for_each: NULL keymap
    FARCAST_XKB_GUARD_NULL_STATE = 4,    ///< state_update_mask / state_key_get_syms: NULL state
};

/// Called once per kind of change, the first time a guard changes a call (from whichever
/// thread made the call: SDL's event pump, the main thread). NULL: no log (the default).
void farcast_xkb_guard_set_log(void (*log)(const char *line));

/// The kinds of change made so far (bits above), for tests and the -v log.
uint32_t farcast_xkb_guard_changes(void);

/// True when the four guards are the functions the process's global lookup finds (the
/// executable exported them): what `xkb_keymap_key_get_syms_by_level` resolves to through
/// dlsym(RTLD_DEFAULT) is this target's function.
int farcast_xkb_guard_installed(void);

#endif
