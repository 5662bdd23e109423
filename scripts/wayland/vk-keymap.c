// A virtual keyboard of our own (wlroots' zwp_virtual_keyboard_v1, as wtype and on-screen
// keyboards use) that sends a full keymap built from xkb names, then presses evdev key codes:
// a keyboard with a named layout as a real one would have, for keymap-change tests.
//   cc -o vk-keymap vk-keymap.c $(pkg-config --cflags --libs wayland-client xkbcommon)
//   vk-keymap LAYOUT CODE...      CODE: an evdev key code, tapped; +CODE presses, -CODE releases
// The protocol is not in Debian's wayland-protocols (it is wlroots'), so its two interfaces are
// written out here from virtual-keyboard-unstable-v1.xml (version 1).
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

static const struct wl_interface *vk_types[] = { NULL, NULL, NULL, NULL, NULL, &wl_seat_interface, NULL };
static const struct wl_message vk_requests[] = {
    { "keymap", "uhu", vk_types }, { "key", "uuu", vk_types }, { "modifiers", "uuuu", vk_types }, { "destroy", "", vk_types },
};
static const struct wl_interface vk_interface = { "zwp_virtual_keyboard_v1", 1, 4, vk_requests, 0, NULL };
static const struct wl_interface *mgr_types[] = { &wl_seat_interface, &vk_interface };
static const struct wl_message mgr_requests[] = { { "create_virtual_keyboard", "on", mgr_types } };
static const struct wl_interface mgr_interface = { "zwp_virtual_keyboard_manager_v1", 1, 1, mgr_requests, 0, NULL };

static struct wl_seat *seat;
static struct wl_proxy *manager;

static void global(void *d, struct wl_registry *r, uint32_t name, const char *iface, uint32_t v) {
    (void)d; (void)v;
    if (!seat && !strcmp(iface, "wl_seat")) seat = wl_registry_bind(r, name, &wl_seat_interface, 1);
    if (!manager && !strcmp(iface, mgr_interface.name)) manager = wl_registry_bind(r, name, &mgr_interface, 1);
}
static void global_remove(void *d, struct wl_registry *r, uint32_t name) { (void)d; (void)r; (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

static uint32_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint32_t)(t.tv_sec * 1000 + t.tv_nsec / 1000000);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: vk-keymap LAYOUT CODE...\n"); return 2; }
    struct wl_display *dpy = wl_display_connect(NULL);
    if (!dpy) { fprintf(stderr, "vk-keymap: no Wayland display\n"); return 1; }
    struct wl_registry *reg = wl_display_get_registry(dpy);
    wl_registry_add_listener(reg, &registry_listener, NULL);
    wl_display_roundtrip(dpy);
    if (!seat || !manager) { fprintf(stderr, "vk-keymap: no seat or virtual keyboard manager\n"); return 1; }
    struct wl_proxy *vk = wl_proxy_marshal_constructor(manager, 0, &vk_interface, seat, NULL);

    struct xkb_context *ctx = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES);
    struct xkb_rule_names names = { "evdev", "pc105", argv[1], "", NULL };
    struct xkb_keymap *km = ctx ? xkb_keymap_new_from_names(ctx, &names, 0) : NULL;
    char *text = km ? xkb_keymap_get_as_string(km, XKB_KEYMAP_FORMAT_TEXT_V1) : NULL;
    if (!text) { fprintf(stderr, "vk-keymap: no keymap for %s\n", argv[1]); return 1; }
    size_t size = strlen(text) + 1;
    int fd = memfd_create("vk-keymap", MFD_CLOEXEC);
    if (fd < 0 || write(fd, text, size) != (ssize_t)size) { perror("vk-keymap: memfd"); return 1; }
    wl_proxy_marshal(vk, 0, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, (uint32_t)size);
    wl_display_roundtrip(dpy);
    usleep(300 * 1000);   // clients take the keymap, enter and modifiers first

    struct xkb_state *st = xkb_state_new(km);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int mode = a[0] == '+' ? 1 : a[0] == '-' ? 2 : 0;
        uint32_t code = (uint32_t)atoi(mode ? a + 1 : a);
        for (int down = 1; down >= 0; down--) {
            if ((mode == 1 && !down) || (mode == 2 && down)) continue;
            wl_proxy_marshal(vk, 1, now_ms(), code, (uint32_t)down);
            // the modifiers request carries the state: the compositor takes it as given
            xkb_state_update_key(st, code + 8, down ? XKB_KEY_DOWN : XKB_KEY_UP);
            wl_proxy_marshal(vk, 2, xkb_state_serialize_mods(st, XKB_STATE_MODS_DEPRESSED),
                             xkb_state_serialize_mods(st, XKB_STATE_MODS_LATCHED),
                             xkb_state_serialize_mods(st, XKB_STATE_MODS_LOCKED),
                             xkb_state_serialize_layout(st, XKB_STATE_LAYOUT_EFFECTIVE));
            wl_display_roundtrip(dpy);
            usleep(40 * 1000);
        }
    }
    wl_proxy_marshal(vk, 3);
    wl_proxy_destroy(vk);
    wl_display_roundtrip(dpy);
    wl_display_disconnect(dpy);
    return 0;
}
