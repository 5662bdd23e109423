// The viewer's own wl_keyboard and keyboard-shortcuts inhibitor on SDL's Wayland connection
// (docs/design/wayland-findings.md 7.5, 7.6): SDL 2.26 gives neither the compositor's keymap
// nor a virtual keyboard's key codes, and its grab never says whether the compositor granted
// it. Our seat is bound on a private queue for the setup roundtrip and then moved to the
// default queue, so its events are dispatched by SDL's own event pump on the main thread;
// every callback below runs there, inside SDL_PumpEvents / SDL_WaitEvent*.
#ifndef CWAYLANDKEYBOARD_H
#define CWAYLANDKEYBOARD_H

#include <stddef.h>
#include <stdint.h>

struct farcast_wl_keyboard;

/// What the compositor said; `user` is passed back. Main thread (inside SDL's pump).
struct farcast_wl_keyboard_events {
    void *user;
    /// A keymap in xkb text form (NUL-terminated copy, valid during the call); `text` NULL
    /// when it could not be read (not xkb v1, mmap failed, over the size limit) with `size`.
    void (*keymap)(void *user, const char *text, uint32_t size);
    /// Keyboard focus on our surface with these keys (evdev codes) already down.
    void (*enter)(void *user, const uint32_t *keys, size_t count);
    void (*leave)(void *user);
    void (*key)(void *user, uint32_t evdev, int down);
    void (*modifiers)(void *user, uint32_t depressed, uint32_t latched, uint32_t locked, uint32_t group);
    /// The shortcuts inhibitor's answer: 1 active (the compositor's shortcuts come to us),
    /// 0 inactive (the compositor keeps them, or the user took them back).
    void (*inhibitor)(void *user, int active);
};

/// Binds a wl_seat (and the shortcuts-inhibit manager when offered) on `display` (SDL's
/// struct wl_display *) for `surface` (SDL's window's struct wl_surface *). NULL when the
/// compositor offers no wl_seat. `events` is copied.
struct farcast_wl_keyboard *farcast_wl_keyboard_new(void *display, void *surface,
                                                    const struct farcast_wl_keyboard_events *events);
void farcast_wl_keyboard_destroy(struct farcast_wl_keyboard *kb);

/// Whether the compositor offers zwp_keyboard_shortcuts_inhibit_manager_v1.
int farcast_wl_keyboard_can_inhibit(const struct farcast_wl_keyboard *kb);

/// Asks the compositor for its shortcuts (on) or gives them back (off): one inhibitor per
/// surface and seat, made or destroyed here. 0 asked (the answer comes through `inhibitor`),
/// -1 no inhibit manager.
int farcast_wl_keyboard_inhibit(struct farcast_wl_keyboard *kb, int on);

/// The largest keymap text taken (xkbcommon's full keymaps are 50-100 KiB; an on-screen
/// keyboard's generated ones a few KiB).
#define FARCAST_WL_KEYMAP_MAX (4u << 20)

#endif
