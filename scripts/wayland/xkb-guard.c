// Proof for issue 31: SDL 2.26's Wayland keyboard code (Debian's libSDL2 links libxkbcommon
// directly and calls it through its GOT, so the process's global symbol lookup decides which
// xkb_* it reaches) can be shielded from the calls that crash by defining these functions in
// the executable (exported: -Wl,--export-dynamic-symbol=...) or, as here, in an LD_PRELOAD.
// Each checks what libxkbcommon 1.5 does not and forwards to the real function (RTLD_NEXT).
//   cc -shared -fPIC -O1 -o xkb-guard.so xkb-guard.c -ldl -lxkbcommon
// or compiled into an executable (sdl-keys.c -DGUARD shows the link flags).
// FARCAST_XKB_GUARD_LOG=1 writes a line to stderr each time a guard changes a call.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <xkbcommon/xkbcommon.h>

#define REAL(name) static __typeof__(name) *real; if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)
static int logging = -1;
static void note(const char *what) {
    if (logging < 0) logging = getenv("FARCAST_XKB_GUARD_LOG") != NULL;
    if (logging) fprintf(stderr, "xkb-guard: %s\n", what);
}

// SDL 2.26 Wayland_get_scancode_from_key (virtual keyboard: a keymap without layout names)
// passes input->xkb.current_group, XKB_GROUP_INVALID until the first wl_keyboard.modifiers
// event; keyboard_handle_enter does that for the keys already down. libxkbcommon 1.5 wraps a
// negative layout as num_groups + (layout % num_groups), which is num_groups (one past the
// end of key->groups) for a one-layout keymap: the read of groups[1].type faults or not,
// depending on the heap.
int xkb_keymap_key_get_syms_by_level(struct xkb_keymap *keymap, xkb_keycode_t key, xkb_layout_index_t layout,
                                     xkb_level_index_t level, const xkb_keysym_t **syms_out) {
    REAL(xkb_keymap_key_get_syms_by_level);
    if (!keymap) { note("get_syms_by_level: NULL keymap"); *syms_out = NULL; return 0; }
    if (layout >= xkb_keymap_num_layouts_for_key(keymap, key)) {
        if (layout == XKB_LAYOUT_INVALID) note("get_syms_by_level: layout XKB_LAYOUT_INVALID, using 0");
        else note("get_syms_by_level: layout out of range, using 0");
        layout = 0;
    }
    return real(keymap, key, layout, level, syms_out);
}

// SDL 2.26 keyboard_handle_modifiers before a keymap arrived, or after one failed to compile
// (libsdl-org/SDL issue 9022, fixed by PR 9023, cherry-picked to the 2.30 series)
enum xkb_state_component xkb_state_update_mask(struct xkb_state *state, xkb_mod_mask_t depressed,
                                               xkb_mod_mask_t latched, xkb_mod_mask_t locked,
                                               xkb_layout_index_t dl, xkb_layout_index_t ll, xkb_layout_index_t lk) {
    REAL(xkb_state_update_mask);
    if (!state) { note("state_update_mask: NULL state"); return 0; }
    return real(state, depressed, latched, locked, dl, ll, lk);
}

// keyboard_handle_modifiers after a later keymap failed to compile (input->xkb.keymap NULL)
void xkb_keymap_key_for_each(struct xkb_keymap *keymap, xkb_keymap_key_iter_t iter, void *data) {
    REAL(xkb_keymap_key_for_each);
    if (!keymap) { note("key_for_each: NULL keymap"); return; }
    real(keymap, iter, data);
}

int xkb_state_key_get_syms(struct xkb_state *state, xkb_keycode_t key, const xkb_keysym_t **syms_out) {
    REAL(xkb_state_key_get_syms);
    if (!state) { note("state_key_get_syms: NULL state"); *syms_out = NULL; return 0; }
    return real(state, key, syms_out);
}
