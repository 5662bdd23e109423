// The four guards of CXKBGuard.h; the proof and the reasoning are in
// scripts/wayland/xkb-guard.c and docs/design/wayland-findings.md section 2(c).
#define _GNU_SOURCE
#include "CXKBGuard.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <xkbcommon/xkbcommon.h>

static void (*_Atomic guard_log)(const char *);
static _Atomic uint32_t guard_changes;

void farcast_xkb_guard_set_log(void (*log)(const char *line)) { atomic_store(&guard_log, log); }

uint32_t farcast_xkb_guard_changes(void) { return atomic_load(&guard_changes); }

// One log line per kind, the first time: a viewer typing on a virtual keyboard would otherwise
// log every key.
static void changed(uint32_t kind, const char *what) {
    uint32_t before = atomic_fetch_or(&guard_changes, kind);
    void (*log)(const char *) = atomic_load(&guard_log);
    if (!(before & kind) && log) log(what);
}

// The real function, looked up once (a data race on first use writes the same pointer).
#define REAL(name) \
    static __typeof__(name) *_Atomic real_##name; \
    __typeof__(name) *real = atomic_load(&real_##name); \
    if (!real) { real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name); atomic_store(&real_##name, real); }

int farcast_xkb_guard_installed(void) {
    return dlsym(RTLD_DEFAULT, "xkb_keymap_key_get_syms_by_level") == (void *)&xkb_keymap_key_get_syms_by_level;
}

// SDL 2.26 Wayland_get_scancode_from_key (a virtual keyboard's keymap) passes
// XKB_LAYOUT_INVALID until the first wl_keyboard.modifiers; libxkbcommon 1.5 wraps it to
// num_layouts, one past the end of the key's groups.
int xkb_keymap_key_get_syms_by_level(struct xkb_keymap *keymap, xkb_keycode_t key, xkb_layout_index_t layout,
                                     xkb_level_index_t level, const xkb_keysym_t **syms_out) {
    REAL(xkb_keymap_key_get_syms_by_level);
    if (!keymap || !real) {
        changed(FARCAST_XKB_GUARD_NULL_KEYMAP, "xkb guard: SDL asked for a key's symbols without a keymap: none given");
        if (syms_out) *syms_out = NULL;
        return 0;
    }
    xkb_layout_index_t layouts = xkb_keymap_num_layouts_for_key(keymap, key);
    if (layouts == 0) {
        if (syms_out) *syms_out = NULL;
        return 0;
    }
    if (layout >= layouts) {
        changed(FARCAST_XKB_GUARD_LAYOUT, "xkb guard: SDL asked for a key in a layout the keymap lacks (SDL 2.26, virtual keyboard): layout 0 used");
        layout = 0;
    }
    return real(keymap, key, layout, level, syms_out);
}

// SDL 2.26 keyboard_handle_modifiers before a keymap, or after one failed to compile
// (libsdl-org/SDL issue 9022).
enum xkb_state_component xkb_state_update_mask(struct xkb_state *state, xkb_mod_mask_t depressed,
                                               xkb_mod_mask_t latched, xkb_mod_mask_t locked,
                                               xkb_layout_index_t dl, xkb_layout_index_t ll, xkb_layout_index_t lk) {
    REAL(xkb_state_update_mask);
    if (!state || !real) {
        changed(FARCAST_XKB_GUARD_NULL_STATE, "xkb guard: SDL updated modifiers without a keyboard state: ignored");
        return 0;
    }
    return real(state, depressed, latched, locked, dl, ll, lk);
}

// keyboard_handle_modifiers after a later keymap failed to compile (keymap NULL).
void xkb_keymap_key_for_each(struct xkb_keymap *keymap, xkb_keymap_key_iter_t iter, void *data) {
    REAL(xkb_keymap_key_for_each);
    if (!keymap || !real) {
        changed(FARCAST_XKB_GUARD_NULL_KEYMAP, "xkb guard: SDL walked the keys without a keymap: ignored");
        return;
    }
    real(keymap, iter, data);
}

int xkb_state_key_get_syms(struct xkb_state *state, xkb_keycode_t key, const xkb_keysym_t **syms_out) {
    REAL(xkb_state_key_get_syms);
    if (!state || !real) {
        changed(FARCAST_XKB_GUARD_NULL_STATE, "xkb guard: SDL asked for a key's symbols without a keyboard state: none given");
        if (syms_out) *syms_out = NULL;
        return 0;
    }
    return real(state, key, syms_out);
}
