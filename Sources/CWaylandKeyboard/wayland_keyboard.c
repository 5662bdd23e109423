// CWaylandKeyboard.h: our wl_seat / wl_keyboard and shortcuts inhibitor on SDL's display.
// The protocol code for the inhibitor is generated (scripts/wayland/generate-protocols.sh).
#include "CWaylandKeyboard.h"
#include "keyboard-shortcuts-inhibit-unstable-v1-client-protocol.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

struct farcast_wl_keyboard {
    struct farcast_wl_keyboard_events ev;
    struct wl_display *display;
    struct wl_surface *surface;
    struct wl_seat *seat;
    struct wl_keyboard *keyboard;
    struct zwp_keyboard_shortcuts_inhibit_manager_v1 *inhibit_manager;
    struct zwp_keyboard_shortcuts_inhibitor_v1 *inhibitor;
};

static void kb_keymap(void *data, struct wl_keyboard *k, uint32_t format, int fd, uint32_t size) {
    struct farcast_wl_keyboard *kb = data;
    (void)k;
    char *text = NULL;
    if (format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1 && size > 0 && size <= FARCAST_WL_KEYMAP_MAX) {
        char *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            // the size includes the NUL the compositor should have written; do not trust it
            text = malloc((size_t)size + 1);
            if (text) { memcpy(text, map, size); text[size] = 0; }
            munmap(map, size);
        }
    }
    close(fd);
    if (kb->ev.keymap) kb->ev.keymap(kb->ev.user, text, size);
    free(text);
}

static void kb_enter(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s, struct wl_array *keys) {
    struct farcast_wl_keyboard *kb = data;
    (void)k; (void)serial;
    if (s != kb->surface) return;
    if (kb->ev.enter) kb->ev.enter(kb->ev.user, keys->data, keys->size / sizeof(uint32_t));
}

static void kb_leave(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s) {
    struct farcast_wl_keyboard *kb = data;
    (void)k; (void)serial;
    if (s != kb->surface) return;
    if (kb->ev.leave) kb->ev.leave(kb->ev.user);
}

static void kb_key(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t time, uint32_t key, uint32_t state) {
    struct farcast_wl_keyboard *kb = data;
    (void)k; (void)serial; (void)time;
    if (kb->ev.key) kb->ev.key(kb->ev.user, key, state == WL_KEYBOARD_KEY_STATE_PRESSED);
}

static void kb_modifiers(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t dep, uint32_t lat,
                         uint32_t lock, uint32_t group) {
    struct farcast_wl_keyboard *kb = data;
    (void)k; (void)serial;
    if (kb->ev.modifiers) kb->ev.modifiers(kb->ev.user, dep, lat, lock, group);
}

// The compositor does not repeat keys; SDL's own repeat events are what the viewer repeats.
static void kb_repeat(void *data, struct wl_keyboard *k, int32_t rate, int32_t delay) {
    (void)data; (void)k; (void)rate; (void)delay;
}

static const struct wl_keyboard_listener keyboard_listener = {
    kb_keymap, kb_enter, kb_leave, kb_key, kb_modifiers, kb_repeat,
};

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t caps) {
    struct farcast_wl_keyboard *kb = data;
    if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !kb->keyboard) {
        kb->keyboard = wl_seat_get_keyboard(seat);
        wl_keyboard_add_listener(kb->keyboard, &keyboard_listener, kb);
    } else if (!(caps & WL_SEAT_CAPABILITY_KEYBOARD) && kb->keyboard) {
        // a virtual keyboard went away: whatever it held is released by the leave that
        // the compositor sends first (or by the window's focus loss)
        if (wl_keyboard_get_version(kb->keyboard) >= WL_KEYBOARD_RELEASE_SINCE_VERSION) wl_keyboard_release(kb->keyboard);
        else wl_keyboard_destroy(kb->keyboard);
        kb->keyboard = NULL;
    }
}

static void seat_name(void *data, struct wl_seat *seat, const char *name) { (void)data; (void)seat; (void)name; }

static const struct wl_seat_listener seat_listener = { seat_capabilities, seat_name };

static void inhibitor_active(void *data, struct zwp_keyboard_shortcuts_inhibitor_v1 *i) {
    struct farcast_wl_keyboard *kb = data;
    (void)i;
    if (kb->ev.inhibitor) kb->ev.inhibitor(kb->ev.user, 1);
}

static void inhibitor_inactive(void *data, struct zwp_keyboard_shortcuts_inhibitor_v1 *i) {
    struct farcast_wl_keyboard *kb = data;
    (void)i;
    if (kb->ev.inhibitor) kb->ev.inhibitor(kb->ev.user, 0);
}

static const struct zwp_keyboard_shortcuts_inhibitor_v1_listener inhibitor_listener = {
    inhibitor_active, inhibitor_inactive,
};

static void registry_global(void *data, struct wl_registry *r, uint32_t name, const char *iface, uint32_t version) {
    struct farcast_wl_keyboard *kb = data;
    // the first seat: SDL 2.26 also uses only one
    if (!kb->seat && strcmp(iface, wl_seat_interface.name) == 0) {
        kb->seat = wl_registry_bind(r, name, &wl_seat_interface, version < 5 ? version : 5);
    } else if (!kb->inhibit_manager && strcmp(iface, zwp_keyboard_shortcuts_inhibit_manager_v1_interface.name) == 0) {
        kb->inhibit_manager = wl_registry_bind(r, name, &zwp_keyboard_shortcuts_inhibit_manager_v1_interface, 1);
    }
}

static void registry_remove(void *data, struct wl_registry *r, uint32_t name) { (void)data; (void)r; (void)name; }

static const struct wl_registry_listener registry_listener = { registry_global, registry_remove };

struct farcast_wl_keyboard *farcast_wl_keyboard_new(void *display, void *surface,
                                                    const struct farcast_wl_keyboard_events *events) {
    if (!display || !surface || !events) return NULL;
    struct farcast_wl_keyboard *kb = calloc(1, sizeof *kb);
    if (!kb) return NULL;
    kb->ev = *events;
    kb->display = display;
    kb->surface = surface;
    // The setup roundtrip on a queue of our own: dispatching SDL's default queue here would
    // run SDL's listeners outside its pump. The proxies then move to the default queue, which
    // SDL dispatches (the keyboard made from the seat later inherits it).
    struct wl_event_queue *queue = wl_display_create_queue(kb->display);
    if (!queue) { free(kb); return NULL; }
    struct wl_registry *registry = wl_display_get_registry(kb->display);
    if (registry) {
        wl_proxy_set_queue((struct wl_proxy *)registry, queue);
        wl_registry_add_listener(registry, &registry_listener, kb);
        wl_display_roundtrip_queue(kb->display, queue);
        wl_registry_destroy(registry);
    }
    if (kb->seat) wl_proxy_set_queue((struct wl_proxy *)kb->seat, NULL);
    if (kb->inhibit_manager) wl_proxy_set_queue((struct wl_proxy *)kb->inhibit_manager, NULL);
    wl_event_queue_destroy(queue);
    if (!kb->seat) {
        if (kb->inhibit_manager) zwp_keyboard_shortcuts_inhibit_manager_v1_destroy(kb->inhibit_manager);
        free(kb);
        return NULL;
    }
    wl_seat_add_listener(kb->seat, &seat_listener, kb);
    wl_display_flush(kb->display);
    return kb;
}

void farcast_wl_keyboard_destroy(struct farcast_wl_keyboard *kb) {
    if (!kb) return;
    if (kb->inhibitor) zwp_keyboard_shortcuts_inhibitor_v1_destroy(kb->inhibitor);
    if (kb->inhibit_manager) zwp_keyboard_shortcuts_inhibit_manager_v1_destroy(kb->inhibit_manager);
    if (kb->keyboard) wl_keyboard_destroy(kb->keyboard);
    if (kb->seat) {
        if (wl_seat_get_version(kb->seat) >= WL_SEAT_RELEASE_SINCE_VERSION) wl_seat_release(kb->seat);
        else wl_seat_destroy(kb->seat);
    }
    wl_display_flush(kb->display);
    free(kb);
}

int farcast_wl_keyboard_can_inhibit(const struct farcast_wl_keyboard *kb) {
    return kb && kb->inhibit_manager != NULL;
}

int farcast_wl_keyboard_inhibit(struct farcast_wl_keyboard *kb, int on) {
    if (!kb || !kb->inhibit_manager) return -1;
    if (on && !kb->inhibitor) {
        kb->inhibitor = zwp_keyboard_shortcuts_inhibit_manager_v1_inhibit_shortcuts(kb->inhibit_manager, kb->surface, kb->seat);
        if (kb->inhibitor) zwp_keyboard_shortcuts_inhibitor_v1_add_listener(kb->inhibitor, &inhibitor_listener, kb);
    } else if (!on && kb->inhibitor) {
        zwp_keyboard_shortcuts_inhibitor_v1_destroy(kb->inhibitor);
        kb->inhibitor = NULL;
    }
    wl_display_flush(kb->display);
    return 0;
}
