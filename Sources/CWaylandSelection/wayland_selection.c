#define _GNU_SOURCE
#include "wayland_selection.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "primary-selection-unstable-v1-client-protocol.h"

/* Our sources carry this type too, so an offer of our own text is known without reading it. */
static const char *const OURS = "application/x-farcast-selection";
/* Text types, best first: what we ask an owner for, and what we offer. */
static const char *const TEXT_TYPES[] = {"text/plain;charset=utf-8", "UTF8_STRING", "text/plain", "TEXT", "STRING"};
#define N_TEXT_TYPES (sizeof TEXT_TYPES / sizeof TEXT_TYPES[0])

/* One offer (wl_data_offer or zwp_primary_selection_offer_v1): the types it names. */
typedef struct {
    int best; /* index into TEXT_TYPES, N_TEXT_TYPES when none */
    int ours;
} offer_info;

struct fc_wlsel {
    struct wl_display *display;
    fc_wlsel_callbacks cb;
    struct wl_seat *seat;
    struct wl_keyboard *keyboard;
    struct wl_pointer *pointer;
    struct wl_touch *touch;
    struct wl_data_device_manager *data_manager;
    struct wl_data_device *data_device;
    struct zwp_primary_selection_device_manager_v1 *primary_manager;
    struct zwp_primary_selection_device_v1 *primary_device;
    /* the current selections offered to us, and a drag's offer (never read) */
    struct wl_data_offer *clipboard_offer, *dnd_offer;
    struct zwp_primary_selection_offer_v1 *primary_offer;
    /* the sources of the text we set, until the compositor cancels them */
    struct wl_data_source *clipboard_source;
    struct zwp_primary_selection_source_v1 *primary_source;
    /* the latest input serial sent to us: set_selection must name one (the focus rule) */
    uint32_t serial;
    int have_serial;
};

static void note_serial(fc_wlsel *s, uint32_t serial) { s->serial = serial; s->have_serial = 1; }

static void noop() {}

/* ---- offers ---- */

static void offer_type(offer_info *info, const char *mime) {
    if (strcmp(mime, OURS) == 0) { info->ours = 1; return; }
    for (int i = 0; i < (int)N_TEXT_TYPES && i < info->best; i++)
        if (strcmp(mime, TEXT_TYPES[i]) == 0) { info->best = i; return; }
}

static void data_offer_offer(void *data, struct wl_data_offer *o, const char *mime) { (void)o; offer_type(data, mime); }
static const struct wl_data_offer_listener data_offer_listener = {
    .offer = data_offer_offer, .source_actions = (void *)noop, .action = (void *)noop,
};

static void primary_offer_offer(void *data, struct zwp_primary_selection_offer_v1 *o, const char *mime) {
    (void)o; offer_type(data, mime);
}
static const struct zwp_primary_selection_offer_v1_listener primary_offer_listener = {.offer = primary_offer_offer};

static offer_info *new_info(void) {
    offer_info *info = calloc(1, sizeof *info);
    if (info) info->best = N_TEXT_TYPES;
    return info;
}

static void destroy_data_offer(struct wl_data_offer *o) {
    if (!o) return;
    free(wl_data_offer_get_user_data(o));
    wl_data_offer_destroy(o);
}

static void destroy_primary_offer(struct zwp_primary_selection_offer_v1 *o) {
    if (!o) return;
    free(zwp_primary_selection_offer_v1_get_user_data(o));
    zwp_primary_selection_offer_v1_destroy(o);
}

static int has_text(void *info) { return info && ((offer_info *)info)->best < (int)N_TEXT_TYPES; }

/* ---- the clipboard's data device ---- */

static void dd_data_offer(void *data, struct wl_data_device *d, struct wl_data_offer *o) {
    (void)data; (void)d;
    offer_info *info = new_info();
    if (!info) { wl_data_offer_destroy(o); return; }
    wl_data_offer_add_listener(o, &data_offer_listener, info);
}

static void dd_enter(void *data, struct wl_data_device *d, uint32_t serial, struct wl_surface *surf,
                     wl_fixed_t x, wl_fixed_t y, struct wl_data_offer *o) {
    (void)d; (void)serial; (void)surf; (void)x; (void)y;
    fc_wlsel *s = data;
    /* drags are SDL's (its own data device); ours only lets the offer go */
    if (s->dnd_offer != s->clipboard_offer) destroy_data_offer(s->dnd_offer);
    s->dnd_offer = o;
}

static void dd_leave(void *data, struct wl_data_device *d) {
    (void)d;
    fc_wlsel *s = data;
    if (s->dnd_offer != s->clipboard_offer) destroy_data_offer(s->dnd_offer);
    s->dnd_offer = NULL;
}

static void dd_selection(void *data, struct wl_data_device *d, struct wl_data_offer *o) {
    (void)d;
    fc_wlsel *s = data;
    if (s->clipboard_offer && s->clipboard_offer != s->dnd_offer) destroy_data_offer(s->clipboard_offer);
    s->clipboard_offer = o;
    if (s->cb.changed) s->cb.changed(s->cb.context, FC_WLSEL_CLIPBOARD, o ? has_text(wl_data_offer_get_user_data(o)) : 0);
}

static const struct wl_data_device_listener data_device_listener = {
    .data_offer = dd_data_offer, .enter = dd_enter, .leave = dd_leave,
    .motion = (void *)noop, .drop = (void *)noop, .selection = dd_selection,
};

/* ---- the primary selection's device ---- */

static void pd_data_offer(void *data, struct zwp_primary_selection_device_v1 *d, struct zwp_primary_selection_offer_v1 *o) {
    (void)data; (void)d;
    offer_info *info = new_info();
    if (!info) { zwp_primary_selection_offer_v1_destroy(o); return; }
    zwp_primary_selection_offer_v1_add_listener(o, &primary_offer_listener, info);
}

static void pd_selection(void *data, struct zwp_primary_selection_device_v1 *d, struct zwp_primary_selection_offer_v1 *o) {
    (void)d;
    fc_wlsel *s = data;
    destroy_primary_offer(s->primary_offer);
    s->primary_offer = o;
    if (s->cb.changed)
        s->cb.changed(s->cb.context, FC_WLSEL_PRIMARY, o ? has_text(zwp_primary_selection_offer_v1_get_user_data(o)) : 0);
}

static const struct zwp_primary_selection_device_v1_listener primary_device_listener = {
    .data_offer = pd_data_offer, .selection = pd_selection,
};

/* ---- our sources ---- */

static void ds_send(void *data, struct wl_data_source *src, const char *mime, int32_t fd) {
    (void)src; (void)mime;
    fc_wlsel *s = data;
    if (s->cb.send) s->cb.send(s->cb.context, FC_WLSEL_CLIPBOARD, fd); else close(fd);
}

static void ds_cancelled(void *data, struct wl_data_source *src) {
    fc_wlsel *s = data;
    if (s->clipboard_source == src) s->clipboard_source = NULL;
    wl_data_source_destroy(src);
}

static const struct wl_data_source_listener data_source_listener = {
    .target = (void *)noop, .send = ds_send, .cancelled = ds_cancelled,
    .dnd_drop_performed = (void *)noop, .dnd_finished = (void *)noop, .action = (void *)noop,
};

static void ps_send(void *data, struct zwp_primary_selection_source_v1 *src, const char *mime, int32_t fd) {
    (void)src; (void)mime;
    fc_wlsel *s = data;
    if (s->cb.send) s->cb.send(s->cb.context, FC_WLSEL_PRIMARY, fd); else close(fd);
}

static void ps_cancelled(void *data, struct zwp_primary_selection_source_v1 *src) {
    fc_wlsel *s = data;
    if (s->primary_source == src) s->primary_source = NULL;
    zwp_primary_selection_source_v1_destroy(src);
}

static const struct zwp_primary_selection_source_v1_listener primary_source_listener = {
    .send = ps_send, .cancelled = ps_cancelled,
};

/* ---- the seat: only for the serials that set_selection needs ---- */

static void kb_keymap(void *data, struct wl_keyboard *k, uint32_t format, int32_t fd, uint32_t size) {
    (void)data; (void)k; (void)format; (void)size;
    close(fd);
}
static void kb_enter(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *surf, struct wl_array *keys) {
    (void)k; (void)surf; (void)keys; note_serial(data, serial);
}
static void kb_leave(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *surf) {
    (void)data; (void)k; (void)serial; (void)surf;
}
static void kb_key(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t time, uint32_t key, uint32_t state) {
    (void)k; (void)time; (void)key; (void)state; note_serial(data, serial);
}
static const struct wl_keyboard_listener keyboard_listener = {
    .keymap = kb_keymap, .enter = kb_enter, .leave = kb_leave, .key = kb_key,
    .modifiers = (void *)noop, .repeat_info = (void *)noop,
};

static void ptr_enter(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *surf, wl_fixed_t x, wl_fixed_t y) {
    (void)p; (void)surf; (void)x; (void)y; note_serial(data, serial);
}
static void ptr_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time, uint32_t button, uint32_t state) {
    (void)p; (void)time; (void)button; (void)state; note_serial(data, serial);
}
static const struct wl_pointer_listener pointer_listener = {
    .enter = ptr_enter, .leave = (void *)noop, .motion = (void *)noop, .button = ptr_button,
    .axis = (void *)noop, .frame = (void *)noop, .axis_source = (void *)noop, .axis_stop = (void *)noop,
    .axis_discrete = (void *)noop,
};

static void touch_down(void *data, struct wl_touch *t, uint32_t serial, uint32_t time, struct wl_surface *surf,
                       int32_t id, wl_fixed_t x, wl_fixed_t y) {
    (void)t; (void)time; (void)surf; (void)id; (void)x; (void)y; note_serial(data, serial);
}
static const struct wl_touch_listener touch_listener = {
    .down = touch_down, .up = (void *)noop, .motion = (void *)noop, .frame = (void *)noop,
    .cancel = (void *)noop, .shape = (void *)noop, .orientation = (void *)noop,
};

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t caps) {
    fc_wlsel *s = data;
    if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !s->keyboard) {
        s->keyboard = wl_seat_get_keyboard(seat);
        wl_keyboard_add_listener(s->keyboard, &keyboard_listener, s);
    } else if (!(caps & WL_SEAT_CAPABILITY_KEYBOARD) && s->keyboard) {
        wl_keyboard_release(s->keyboard);
        s->keyboard = NULL;
    }
    if ((caps & WL_SEAT_CAPABILITY_POINTER) && !s->pointer) {
        s->pointer = wl_seat_get_pointer(seat);
        wl_pointer_add_listener(s->pointer, &pointer_listener, s);
    } else if (!(caps & WL_SEAT_CAPABILITY_POINTER) && s->pointer) {
        wl_pointer_release(s->pointer);
        s->pointer = NULL;
    }
    if ((caps & WL_SEAT_CAPABILITY_TOUCH) && !s->touch) {
        s->touch = wl_seat_get_touch(seat);
        wl_touch_add_listener(s->touch, &touch_listener, s);
    } else if (!(caps & WL_SEAT_CAPABILITY_TOUCH) && s->touch) {
        wl_touch_release(s->touch);
        s->touch = NULL;
    }
}
static const struct wl_seat_listener seat_listener = {.capabilities = seat_capabilities, .name = (void *)noop};

/* ---- set-up ---- */

static void global(void *data, struct wl_registry *r, uint32_t name, const char *iface, uint32_t version) {
    fc_wlsel *s = data;
    if (strcmp(iface, wl_seat_interface.name) == 0 && !s->seat) {
        /* v5: the listeners above cover every event up to it (release needs v3) */
        if (version < 3) return;
        s->seat = wl_registry_bind(r, name, &wl_seat_interface, version < 5 ? version : 5);
        wl_seat_add_listener(s->seat, &seat_listener, s);
    } else if (strcmp(iface, wl_data_device_manager_interface.name) == 0 && !s->data_manager) {
        s->data_manager = wl_registry_bind(r, name, &wl_data_device_manager_interface, version < 3 ? version : 3);
    } else if (strcmp(iface, zwp_primary_selection_device_manager_v1_interface.name) == 0 && !s->primary_manager) {
        s->primary_manager = wl_registry_bind(r, name, &zwp_primary_selection_device_manager_v1_interface, 1);
    }
}
static const struct wl_registry_listener registry_listener = {.global = global, .global_remove = (void *)noop};

/* Every proxy we hold moves to the default queue, which SDL's pump dispatches. */
static void to_default_queue(fc_wlsel *s) {
    void *proxies[] = {s->seat, s->keyboard, s->pointer, s->touch, s->data_manager, s->data_device,
                       s->primary_manager, s->primary_device, s->clipboard_offer, s->dnd_offer, s->primary_offer};
    for (size_t i = 0; i < sizeof proxies / sizeof proxies[0]; i++)
        if (proxies[i]) wl_proxy_set_queue(proxies[i], NULL);
}

fc_wlsel *fc_wlsel_create(struct wl_display *display, fc_wlsel_callbacks callbacks) {
    if (!display) return NULL;
    fc_wlsel *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->display = display;
    s->cb = callbacks;
    /* the set-up's round trips on a queue of our own: SDL's listeners never see our replies */
    struct wl_event_queue *queue = wl_display_create_queue(display);
    struct wl_display *wrapped = queue ? wl_proxy_create_wrapper(display) : NULL;
    if (!wrapped) {
        if (queue) wl_event_queue_destroy(queue);
        free(s);
        return NULL;
    }
    wl_proxy_set_queue((struct wl_proxy *)wrapped, queue);
    struct wl_registry *registry = wl_display_get_registry(wrapped);
    wl_registry_add_listener(registry, &registry_listener, s);
    int ok = wl_display_roundtrip_queue(display, queue) >= 0 && s->seat && s->data_manager;
    if (ok) {
        s->data_device = wl_data_device_manager_get_data_device(s->data_manager, s->seat);
        wl_data_device_add_listener(s->data_device, &data_device_listener, s);
        if (s->primary_manager) {
            s->primary_device = zwp_primary_selection_device_manager_v1_get_device(s->primary_manager, s->seat);
            zwp_primary_selection_device_v1_add_listener(s->primary_device, &primary_device_listener, s);
        }
        /* the seat's capabilities and the current selections */
        ok = wl_display_roundtrip_queue(display, queue) >= 0;
    }
    wl_registry_destroy(registry);
    wl_proxy_wrapper_destroy(wrapped);
    to_default_queue(s);
    /* anything read for our proxies but not yet dispatched */
    wl_display_dispatch_queue_pending(display, queue);
    wl_event_queue_destroy(queue);
    if (!ok) { fc_wlsel_destroy(s); return NULL; }
    return s;
}

void fc_wlsel_destroy(fc_wlsel *s) {
    if (!s) return;
    if (s->clipboard_source) wl_data_source_destroy(s->clipboard_source);
    if (s->primary_source) zwp_primary_selection_source_v1_destroy(s->primary_source);
    if (s->dnd_offer != s->clipboard_offer) destroy_data_offer(s->dnd_offer);
    destroy_data_offer(s->clipboard_offer);
    destroy_primary_offer(s->primary_offer);
    if (s->data_device) {
        if (wl_data_device_get_version(s->data_device) >= 2) wl_data_device_release(s->data_device);
        else wl_data_device_destroy(s->data_device);
    }
    if (s->primary_device) zwp_primary_selection_device_v1_destroy(s->primary_device);
    if (s->primary_manager) zwp_primary_selection_device_manager_v1_destroy(s->primary_manager);
    if (s->data_manager) wl_data_device_manager_destroy(s->data_manager);
    if (s->keyboard) wl_keyboard_release(s->keyboard);
    if (s->pointer) wl_pointer_release(s->pointer);
    if (s->touch) wl_touch_release(s->touch);
    if (s->seat) {
        if (wl_seat_get_version(s->seat) >= 5) wl_seat_release(s->seat);
        else wl_seat_destroy(s->seat);
    }
    wl_display_flush(s->display);
    free(s);
}

int fc_wlsel_has_primary(const fc_wlsel *s) { return s && s->primary_device != NULL; }

static offer_info *current_info(const fc_wlsel *s, int selection) {
    if (selection == FC_WLSEL_PRIMARY)
        return s->primary_offer ? zwp_primary_selection_offer_v1_get_user_data(s->primary_offer) : NULL;
    return s->clipboard_offer ? wl_data_offer_get_user_data(s->clipboard_offer) : NULL;
}

int fc_wlsel_is_ours(const fc_wlsel *s, int selection) {
    offer_info *info = s ? current_info(s, selection) : NULL;
    return info && info->ours;
}

int fc_wlsel_receive(fc_wlsel *s, int selection, const char **mime_out) {
    offer_info *info = s ? current_info(s, selection) : NULL;
    if (!has_text(info)) return -1;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    const char *mime = TEXT_TYPES[info->best];
    if (selection == FC_WLSEL_PRIMARY) zwp_primary_selection_offer_v1_receive(s->primary_offer, mime, fds[1]);
    else wl_data_offer_receive(s->clipboard_offer, mime, fds[1]);
    close(fds[1]); /* the owner has its copy once the request is flushed */
    wl_display_flush(s->display);
    if (mime_out) *mime_out = mime;
    return fds[0];
}

int fc_wlsel_set(fc_wlsel *s, int selection, int *had_serial) {
    if (had_serial) *had_serial = s ? s->have_serial : 0;
    if (!s) return -1;
    if (selection == FC_WLSEL_PRIMARY) {
        if (!s->primary_device) return -1;
        struct zwp_primary_selection_source_v1 *src =
            zwp_primary_selection_device_manager_v1_create_source(s->primary_manager);
        if (!src) return -1;
        zwp_primary_selection_source_v1_add_listener(src, &primary_source_listener, s);
        for (size_t i = 0; i < N_TEXT_TYPES; i++) zwp_primary_selection_source_v1_offer(src, TEXT_TYPES[i]);
        zwp_primary_selection_source_v1_offer(src, OURS);
        zwp_primary_selection_device_v1_set_selection(s->primary_device, src, s->serial);
        /* the old source gets `cancelled` and goes then */
        s->primary_source = src;
    } else {
        struct wl_data_source *src = wl_data_device_manager_create_data_source(s->data_manager);
        if (!src) return -1;
        wl_data_source_add_listener(src, &data_source_listener, s);
        for (size_t i = 0; i < N_TEXT_TYPES; i++) wl_data_source_offer(src, TEXT_TYPES[i]);
        wl_data_source_offer(src, OURS);
        wl_data_device_set_selection(s->data_device, src, s->serial);
        s->clipboard_source = src;
    }
    wl_display_flush(s->display);
    return 0;
}

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

size_t fc_wlsel_write_fd(int fd, const void *buf, size_t len, int stall_ms) {
    /* a reader that went away must not end the viewer: SIGPIPE is held on this thread and any
     * pending one taken back before the mask is restored */
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    size_t done = 0;
    long long last = now_ms();
    while (done < len) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int r = poll(&p, 1, 100);
        if (r < 0 && errno != EINTR) break;
        if (r <= 0) {
            if (now_ms() - last > stall_ms) break;
            continue;
        }
        ssize_t n = write(fd, (const char *)buf + done, len - done);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            break;
        }
        done += (size_t)n;
        last = now_ms();
    }
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE) {}
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return done;
}
