// A minimal SDL 2 window that prints its key events, to try SDL 2.26's Wayland keyboard with
// wtype (scripts/wayland/keyboard-crash.sh). Built twice:
//   cc -o sdl-keys sdl-keys.c $(pkg-config --cflags --libs sdl2)
//   cc -DGUARD -o sdl-keys-guarded sdl-keys.c xkb-guard.c -ldl $(pkg-config --cflags --libs sdl2 xkbcommon)
//      -Wl,--export-dynamic-symbol=xkb_keymap_key_get_syms_by_level -Wl,--export-dynamic-symbol=xkb_state_update_mask
//      -Wl,--export-dynamic-symbol=xkb_keymap_key_for_each -Wl,--export-dynamic-symbol=xkb_state_key_get_syms
//   cc -DGUARD -DOWN_KEYBOARD ... $(pkg-config --cflags --libs sdl2 xkbcommon wayland-client) (same flags)
// The second defines the guards in the executable itself, exported, as the viewer would: Debian's
// libSDL2 reaches xkbcommon through the process's global lookup, where the executable comes first.
//
// With -DOWN_KEYBOARD (add SDL_syswm, wayland-client and xkbcommon) it also binds a wl_seat and
// wl_keyboard of its own on SDL's wl_display and prints what the compositor's keymap says each
// key is ("own: ..."): the keysyms SDL 2.26 does not give (virtual keyboards, non-ASCII keys,
// modifier state sent only as wl_keyboard.modifiers), dispatched by SDL's own event pump.
#include <SDL.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef OWN_KEYBOARD
#include <SDL_syswm.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

static struct xkb_context *own_ctx;
static struct xkb_keymap *own_keymap;
static struct xkb_state *own_state;
static struct wl_seat *own_seat;
static struct wl_keyboard *own_kbd;

static void kb_keymap(void *d, struct wl_keyboard *k, uint32_t format, int fd, uint32_t size) {
    char *map = format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1 ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (map == MAP_FAILED) { printf("own: keymap format %u ignored\n", format); return; }
    struct xkb_keymap *km = xkb_keymap_new_from_string(own_ctx, map, XKB_KEYMAP_FORMAT_TEXT_V1, 0);
    munmap(map, size);
    if (!km) { printf("own: keymap does not compile, the old one stays\n"); return; }
    if (own_state) xkb_state_unref(own_state);
    if (own_keymap) xkb_keymap_unref(own_keymap);
    own_keymap = km;
    own_state = xkb_state_new(km);
    const char *name = xkb_keymap_layout_get_name(km, 0);
    printf("own: keymap (%u bytes), layout %s, %u layouts\n", size, name ? name : "(none: a virtual keyboard)",
           xkb_keymap_num_layouts(km));
}
static void kb_enter(void *d, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s, struct wl_array *keys) {
    uint32_t *key;
    wl_array_for_each(key, keys) {
        char name[64] = "?";
        if (own_state) xkb_keysym_get_name(xkb_state_key_get_one_sym(own_state, *key + 8), name, sizeof name);
        printf("own: enter with %s held\n", name);
    }
}
static void kb_leave(void *d, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s) {}
static void kb_key(void *d, struct wl_keyboard *k, uint32_t serial, uint32_t time, uint32_t key, uint32_t state) {
    if (!own_state) return;
    char name[64];
    xkb_keysym_get_name(xkb_state_key_get_one_sym(own_state, key + 8), name, sizeof name);
    printf("own: %s %s (evdev %u)\n", state ? "down" : "up", name, key);
}
static void kb_mods(void *d, struct wl_keyboard *k, uint32_t serial, uint32_t dep, uint32_t lat, uint32_t lock, uint32_t group) {
    if (own_state) xkb_state_update_mask(own_state, dep, lat, lock, 0, 0, group);
}
static void kb_repeat(void *d, struct wl_keyboard *k, int32_t rate, int32_t delay) {}
static const struct wl_keyboard_listener kb_listener = { kb_keymap, kb_enter, kb_leave, kb_key, kb_mods, kb_repeat };
static void seat_caps(void *d, struct wl_seat *seat, uint32_t caps) {
    if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !own_kbd) {
        own_kbd = wl_seat_get_keyboard(seat);
        wl_keyboard_add_listener(own_kbd, &kb_listener, NULL);
    } else if (!(caps & WL_SEAT_CAPABILITY_KEYBOARD) && own_kbd) {
        wl_keyboard_destroy(own_kbd);
        own_kbd = NULL;
    }
}
static void seat_name(void *d, struct wl_seat *seat, const char *name) {}
static const struct wl_seat_listener seat_listener = { seat_caps, seat_name };
static void reg_global(void *d, struct wl_registry *r, uint32_t name, const char *iface, uint32_t v) {
    if (!own_seat && !strcmp(iface, "wl_seat")) own_seat = wl_registry_bind(r, name, &wl_seat_interface, v < 5 ? v : 5);
}
static void reg_remove(void *d, struct wl_registry *r, uint32_t name) {}
static const struct wl_registry_listener reg_listener = { reg_global, reg_remove };

static void own_keyboard(SDL_Window *w) {
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (!SDL_GetWindowWMInfo(w, &info) || info.subsystem != SDL_SYSWM_WAYLAND) { printf("own: not Wayland\n"); return; }
    struct wl_display *dpy = info.info.wl.display;
    own_ctx = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    // the registry on a queue of our own for the roundtrip (SDL's default queue is left alone),
    // then the seat (and so the keyboard made from it) back on the default queue SDL dispatches
    struct wl_event_queue *q = wl_display_create_queue(dpy);
    struct wl_registry *reg = wl_display_get_registry(dpy);
    wl_proxy_set_queue((struct wl_proxy *)reg, q);
    wl_registry_add_listener(reg, &reg_listener, NULL);
    wl_display_roundtrip_queue(dpy, q);
    if (!own_seat) { printf("own: no wl_seat\n"); return; }
    wl_proxy_set_queue((struct wl_proxy *)own_seat, NULL);
    wl_seat_add_listener(own_seat, &seat_listener, NULL);
    wl_display_flush(dpy);
}
#endif

int main(int argc, char **argv) {
    int seconds = argc > 1 ? atoi(argv[1]) : 10;
    if (SDL_Init(SDL_INIT_VIDEO) != 0) { fprintf(stderr, "SDL_Init: %s\n", SDL_GetError()); return 1; }
    SDL_Window *w = SDL_CreateWindow("sdl-keys", 0, 0, 320, 240, SDL_WINDOW_RESIZABLE);
    SDL_Renderer *r = w ? SDL_CreateRenderer(w, -1, 0) : NULL;
    if (!r) { fprintf(stderr, "window: %s\n", SDL_GetError()); return 1; }
    printf("video %s\n", SDL_GetCurrentVideoDriver());
#ifdef OWN_KEYBOARD
    own_keyboard(w);
#endif
    fflush(stdout);
    Uint32 end = SDL_GetTicks() + (Uint32)seconds * 1000;
    while (!SDL_TICKS_PASSED(SDL_GetTicks(), end)) {
        SDL_Event e;
        while (SDL_WaitEventTimeout(&e, 50)) {
            if (e.type == SDL_KEYDOWN || e.type == SDL_KEYUP)
                printf("%s scancode %d sym %s\n", e.type == SDL_KEYDOWN ? "down" : "up",
                       e.key.keysym.scancode, SDL_GetKeyName(e.key.keysym.sym));
            else if (e.type == SDL_TEXTINPUT) printf("text %s\n", e.text.text);
            else if (e.type == SDL_KEYMAPCHANGED) printf("keymap changed\n");
            fflush(stdout);
        }
        SDL_SetRenderDrawColor(r, 40, 80, 120, 255);
        SDL_RenderClear(r);
        SDL_RenderPresent(r);
    }
    SDL_Quit();
    return 0;
}
