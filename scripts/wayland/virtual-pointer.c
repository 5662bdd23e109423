/* A virtual pointer on a wlroots compositor (zwlr_virtual_pointer_v1), for the window tests:
 *   virtual-pointer W H CMD...   with CMD one of
 *     move X Y      absolute motion to X,Y of a W x H output (logical pixels)
 *     rel DX DY     relative motion (what a locked, relative pointer receives)
 *     down B, up B, click B   a button (1 left, 2 middle, 3 right)
 *     wheel N       N discrete wheel steps (positive: down), as a mouse wheel sends them
 *     sleep MS
 * Each step ends with a frame and a round trip, so the compositor has it before the next.
 * Build: wayland-scanner client-header|private-code protocols/wlr-virtual-pointer-unstable-v1.xml,
 * then cc virtual-pointer.c protocol.c -lwayland-client (the tests do it). */
#include <linux/input-event-codes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

static struct zwlr_virtual_pointer_manager_v1 *manager;

static void global(void *data, struct wl_registry *r, uint32_t name, const char *iface, uint32_t version) {
    (void)data;
    if (strcmp(iface, zwlr_virtual_pointer_manager_v1_interface.name) == 0)
        manager = wl_registry_bind(r, name, &zwlr_virtual_pointer_manager_v1_interface, version < 2 ? version : 2);
}
static void global_remove(void *data, struct wl_registry *r, uint32_t name) { (void)data; (void)r; (void)name; }
static const struct wl_registry_listener registry_listener = {global, global_remove};

static uint32_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static uint32_t button_code(const char *b) {
    int n = atoi(b);
    return n == 3 ? BTN_RIGHT : n == 2 ? BTN_MIDDLE : BTN_LEFT;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s W H CMD...\n", argv[0]); return 2; }
    uint32_t w = (uint32_t)atoi(argv[1]), h = (uint32_t)atoi(argv[2]);
    struct wl_display *d = wl_display_connect(NULL);
    if (!d) { fprintf(stderr, "virtual-pointer: no Wayland display\n"); return 1; }
    struct wl_registry *reg = wl_display_get_registry(d);
    wl_registry_add_listener(reg, &registry_listener, NULL);
    wl_display_roundtrip(d);
    if (!manager) { fprintf(stderr, "virtual-pointer: the compositor has no zwlr_virtual_pointer_manager_v1\n"); return 3; }
    struct zwlr_virtual_pointer_v1 *p = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(manager, NULL);
    wl_display_roundtrip(d);
    for (int i = 3; i < argc; i++) {
        const char *c = argv[i];
        if (strcmp(c, "move") == 0 && i + 2 < argc) {
            zwlr_virtual_pointer_v1_motion_absolute(p, now_ms(), (uint32_t)atoi(argv[i + 1]), (uint32_t)atoi(argv[i + 2]), w, h);
            i += 2;
        } else if (strcmp(c, "rel") == 0 && i + 2 < argc) {
            zwlr_virtual_pointer_v1_motion(p, now_ms(), wl_fixed_from_int(atoi(argv[i + 1])), wl_fixed_from_int(atoi(argv[i + 2])));
            i += 2;
        } else if ((strcmp(c, "down") == 0 || strcmp(c, "up") == 0 || strcmp(c, "click") == 0) && i + 1 < argc) {
            uint32_t b = button_code(argv[++i]);
            if (strcmp(c, "up") != 0) {
                zwlr_virtual_pointer_v1_button(p, now_ms(), b, WL_POINTER_BUTTON_STATE_PRESSED);
                zwlr_virtual_pointer_v1_frame(p);
                wl_display_roundtrip(d);
            }
            if (strcmp(c, "down") != 0) {
                if (strcmp(c, "click") == 0) usleep(50000);
                zwlr_virtual_pointer_v1_button(p, now_ms(), b, WL_POINTER_BUTTON_STATE_RELEASED);
            }
        } else if (strcmp(c, "wheel") == 0 && i + 1 < argc) {
            int n = atoi(argv[++i]);
            zwlr_virtual_pointer_v1_axis_source(p, WL_POINTER_AXIS_SOURCE_WHEEL);
            zwlr_virtual_pointer_v1_axis_discrete(p, now_ms(), WL_POINTER_AXIS_VERTICAL_SCROLL, wl_fixed_from_int(15 * n), n);
        } else if (strcmp(c, "sleep") == 0 && i + 1 < argc) {
            usleep((useconds_t)atoi(argv[++i]) * 1000);
            continue;
        } else {
            fprintf(stderr, "virtual-pointer: bad command %s\n", c);
            return 2;
        }
        zwlr_virtual_pointer_v1_frame(p);
        wl_display_roundtrip(d);
    }
    zwlr_virtual_pointer_v1_destroy(p);
    wl_display_roundtrip(d);
    wl_display_disconnect(d);
    return 0;
}
