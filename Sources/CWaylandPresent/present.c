// The registry probe and the wl_shm presenter (see include/CWaylandPresent.h).
//
// Queues: SDL dispatches the display's default queue inside its event pump. Our registry, wl_shm,
// pools and buffers live on a queue of our own, so their events (above all wl_buffer.release) are
// handled here, when we ask, and never inside SDL's listeners; whoever reads the socket (SDL's
// pump or our wait below) sorts the events into their queues.
#define _GNU_SOURCE
#include "CWaylandPresent.h"

#include <wayland-client.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

// ---- the probe

static void probe_global(void *data, struct wl_registry *r, uint32_t name, const char *iface, uint32_t v) {
    (void)r; (void)name; (void)v;
    if (strcmp(iface, wl_seat_interface.name) == 0) *(int *)data = 1;
}
static void probe_remove(void *data, struct wl_registry *r, uint32_t name) { (void)data; (void)r; (void)name; }
static const struct wl_registry_listener probe_listener = { probe_global, probe_remove };

fc_wl_probe_result fc_wl_probe_seat(const char *display_name) {
    struct wl_display *d = wl_display_connect(display_name);
    if (!d) return FC_WL_PROBE_UNREACHABLE;
    int seat = 0;
    struct wl_registry *r = wl_display_get_registry(d);
    int ok = r && wl_registry_add_listener(r, &probe_listener, &seat) == 0 && wl_display_roundtrip(d) >= 0;
    if (r) wl_registry_destroy(r);
    wl_display_disconnect(d);
    if (!ok) return FC_WL_PROBE_UNREACHABLE;
    return seat ? FC_WL_PROBE_SEAT : FC_WL_PROBE_NO_SEAT;
}

// ---- the presenter

enum {
    MAX_BUFFERS = 3,    // one shown, one the compositor may still read, one to draw into
    MAX_RECTS = 16,     // damage kept as rects; more collapse into their bounding box
};

typedef struct { int32_t x, y, w, h; } rect;

// Damage as a short list of rects; `whole` once it covers everything (or nothing is known).
typedef struct { rect r[MAX_RECTS]; int n; int whole; } damage;

static void damage_add(damage *d, rect a) {
    if (d->whole || a.w <= 0 || a.h <= 0) return;
    if (d->n == MAX_RECTS) {
        // collapse into the bounding box of all: a larger copy, never a lost change
        int32_t x0 = a.x, y0 = a.y, x1 = a.x + a.w, y1 = a.y + a.h;
        for (int i = 0; i < d->n; i++) {
            rect b = d->r[i];
            if (b.x < x0) x0 = b.x;
            if (b.y < y0) y0 = b.y;
            if (b.x + b.w > x1) x1 = b.x + b.w;
            if (b.y + b.h > y1) y1 = b.y + b.h;
        }
        d->r[0] = (rect){ x0, y0, x1 - x0, y1 - y0 };
        d->n = 1;
        return;
    }
    d->r[d->n++] = a;
}

typedef struct {
    struct wl_buffer *buffer;
    uint8_t *data;
    size_t size;
    int32_t width, height, stride;
    int busy;       // attached and not yet released by the compositor
    int retired;    // of an old size: destroyed once the compositor releases it
    damage lacks;   // what changed in the picture since this buffer was last filled
} shm_buffer;

struct fc_wl_presenter {
    struct wl_display *display;
    struct wl_surface *surface;
    struct wl_event_queue *queue;
    struct wl_registry *registry;
    struct wl_shm *shm;
    shm_buffer *buffers[MAX_BUFFERS];
    damage unsent;  // changes not yet committed (a call that found no free buffer)
    int32_t made;
    int64_t presents, waits, dropped;
};

static void shm_global(void *data, struct wl_registry *r, uint32_t name, const char *iface, uint32_t v) {
    (void)v;
    fc_wl_presenter *p = data;
    if (!p->shm && strcmp(iface, wl_shm_interface.name) == 0)
        p->shm = wl_registry_bind(r, name, &wl_shm_interface, 1);
}
static const struct wl_registry_listener shm_listener = { shm_global, probe_remove };

static void buffer_free(shm_buffer *b) {
    if (!b) return;
    if (b->buffer) wl_buffer_destroy(b->buffer);
    if (b->data) munmap(b->data, b->size);
    free(b);
}

static void buffer_release(void *data, struct wl_buffer *wb) {
    (void)wb;
    shm_buffer *b = data;
    b->busy = 0;
}
static const struct wl_buffer_listener buffer_listener = { buffer_release };

fc_wl_presenter *fc_wl_presenter_create(void *display, void *surface) {
    if (!display || !surface) return NULL;
    fc_wl_presenter *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->display = display;
    p->surface = surface;
    p->queue = wl_display_create_queue(p->display);
    p->registry = p->queue ? wl_display_get_registry(p->display) : NULL;
    if (!p->registry) { fc_wl_presenter_destroy(p); return NULL; }
    wl_proxy_set_queue((struct wl_proxy *)p->registry, p->queue);
    wl_registry_add_listener(p->registry, &shm_listener, p);
    if (wl_display_roundtrip_queue(p->display, p->queue) < 0 || !p->shm) { fc_wl_presenter_destroy(p); return NULL; }
    return p;
}

void fc_wl_presenter_destroy(fc_wl_presenter *p) {
    if (!p) return;
    for (int i = 0; i < MAX_BUFFERS; i++) buffer_free(p->buffers[i]);
    if (p->shm) wl_shm_destroy(p->shm);
    if (p->registry) wl_registry_destroy(p->registry);
    if (p->display) wl_display_flush(p->display);
    if (p->queue) wl_event_queue_destroy(p->queue);
    free(p);
}

static shm_buffer *buffer_make(fc_wl_presenter *p, int32_t w, int32_t h) {
    shm_buffer *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->width = w; b->height = h; b->stride = w * 4;
    b->size = (size_t)b->stride * (size_t)h;
    b->lacks.whole = 1;
    int fd = memfd_create("farcast-shm", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)b->size) != 0) { if (fd >= 0) close(fd); free(b); return NULL; }
    b->data = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (b->data == MAP_FAILED) { b->data = NULL; close(fd); free(b); return NULL; }
    struct wl_shm_pool *pool = wl_shm_create_pool(p->shm, fd, (int32_t)b->size);
    close(fd);  // the pool holds the memory now
    if (!pool) { buffer_free(b); return NULL; }
    b->buffer = wl_shm_pool_create_buffer(pool, 0, w, h, b->stride, WL_SHM_FORMAT_XRGB8888);
    wl_shm_pool_destroy(pool);
    if (!b->buffer) { buffer_free(b); return NULL; }
    wl_buffer_add_listener(b->buffer, &buffer_listener, b);
    p->made++;
    return b;
}

// Buffers of another size go (at once when free, once released otherwise).
static void retire_other_sizes(fc_wl_presenter *p, int32_t w, int32_t h) {
    for (int i = 0; i < MAX_BUFFERS; i++) {
        shm_buffer *b = p->buffers[i];
        if (b && (b->width != w || b->height != h)) b->retired = 1;
    }
}

// Drops retired buffers the compositor no longer holds; returns a free buffer of the right size,
// making one in an empty slot when none is free.
static shm_buffer *free_buffer(fc_wl_presenter *p, int32_t w, int32_t h, int *failed) {
    for (int i = 0; i < MAX_BUFFERS; i++) {
        shm_buffer *b = p->buffers[i];
        if (b && b->retired && !b->busy) { buffer_free(b); p->buffers[i] = NULL; }
    }
    for (int i = 0; i < MAX_BUFFERS; i++) {
        shm_buffer *b = p->buffers[i];
        if (b && !b->busy && !b->retired) return b;
    }
    for (int i = 0; i < MAX_BUFFERS; i++) {
        if (p->buffers[i]) continue;
        p->buffers[i] = buffer_make(p, w, h);
        if (!p->buffers[i]) *failed = 1;
        return p->buffers[i];
    }
    return NULL;
}

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

// Reads the socket until our queue has an event or the time is up (libwayland lets several
// readers share the socket: the events for SDL's queue wait there for its pump).
static int wait_for_events(fc_wl_presenter *p, int timeout_ms) {
    while (wl_display_prepare_read_queue(p->display, p->queue) != 0)
        if (wl_display_dispatch_queue_pending(p->display, p->queue) < 0) return -1;
    if (wl_display_flush(p->display) < 0 && errno != EAGAIN) { wl_display_cancel_read(p->display); return -1; }
    struct pollfd fd = { .fd = wl_display_get_fd(p->display), .events = POLLIN };
    int n = poll(&fd, 1, timeout_ms);
    if (n > 0) {
        if (wl_display_read_events(p->display) < 0) return -1;
    } else {
        wl_display_cancel_read(p->display);
        if (n < 0 && errno != EINTR) return -1;
    }
    return wl_display_dispatch_queue_pending(p->display, p->queue) < 0 ? -1 : 0;
}

static rect clip(rect a, int32_t w, int32_t h) {
    int32_t x0 = a.x < 0 ? 0 : a.x, y0 = a.y < 0 ? 0 : a.y;
    int32_t x1 = a.x + a.w > w ? w : a.x + a.w, y1 = a.y + a.h > h ? h : a.y + a.h;
    return (rect){ x0, y0, x1 > x0 ? x1 - x0 : 0, y1 > y0 ? y1 - y0 : 0 };
}

static void copy_rect(shm_buffer *b, const uint8_t *src, int32_t pitch, rect a) {
    for (int32_t y = a.y; y < a.y + a.h; y++)
        memcpy(b->data + (size_t)y * (size_t)b->stride + (size_t)a.x * 4, src + (size_t)y * (size_t)pitch + (size_t)a.x * 4,
               (size_t)a.w * 4);
}

int fc_wl_presenter_present(fc_wl_presenter *p, const void *pixels, int32_t width, int32_t height,
                            int32_t pitch, const int32_t *rects, int32_t count, int whole,
                            int timeout_ms) {
    if (!p || !pixels || width <= 0 || height <= 0 || pitch < width * 4) return -1;
    // what changed goes to every buffer's list of what it lacks, and to what is still unsent
    retire_other_sizes(p, width, height);
    for (int i = 0; i < MAX_BUFFERS; i++) {
        shm_buffer *b = p->buffers[i];
        if (!b) continue;
        if (whole) b->lacks.whole = 1;
        for (int32_t k = 0; k < count && rects; k++)
            damage_add(&b->lacks, clip((rect){ rects[4 * k], rects[4 * k + 1], rects[4 * k + 2], rects[4 * k + 3] }, width, height));
    }
    if (whole) p->unsent.whole = 1;
    for (int32_t k = 0; k < count && rects; k++)
        damage_add(&p->unsent, clip((rect){ rects[4 * k], rects[4 * k + 1], rects[4 * k + 2], rects[4 * k + 3] }, width, height));
    if (!p->unsent.whole && p->unsent.n == 0) return 1;  // nothing to show

    if (wl_display_dispatch_queue_pending(p->display, p->queue) < 0) return -1;
    int failed = 0;
    shm_buffer *b = free_buffer(p, width, height, &failed);
    if (!b && !failed) {
        p->waits++;
        int64_t deadline = now_ms() + timeout_ms;
        for (;;) {
            int64_t left = deadline - now_ms();
            if (left < 0) left = 0;
            if (wait_for_events(p, (int)left) < 0) return -1;
            b = free_buffer(p, width, height, &failed);
            if (b || failed || left == 0) break;
        }
    }
    if (failed) return -1;
    if (!b) { p->dropped++; return 0; }

    const uint8_t *src = pixels;
    if (b->lacks.whole) copy_rect(b, src, pitch, (rect){ 0, 0, width, height });
    else for (int i = 0; i < b->lacks.n; i++) copy_rect(b, src, pitch, b->lacks.r[i]);
    b->lacks = (damage){ 0 };
    b->busy = 1;
    wl_surface_attach(p->surface, b->buffer, 0, 0);
    if (wl_proxy_get_version((struct wl_proxy *)p->surface) >= WL_SURFACE_DAMAGE_BUFFER_SINCE_VERSION) {
        if (p->unsent.whole) wl_surface_damage_buffer(p->surface, 0, 0, width, height);
        else for (int i = 0; i < p->unsent.n; i++)
            wl_surface_damage_buffer(p->surface, p->unsent.r[i].x, p->unsent.r[i].y, p->unsent.r[i].w, p->unsent.r[i].h);
    } else {
        // surface coordinates would need the buffer scale: the whole surface instead
        wl_surface_damage(p->surface, 0, 0, INT32_MAX, INT32_MAX);
    }
    wl_surface_commit(p->surface);
    p->unsent = (damage){ 0 };
    p->presents++;
    if (wl_display_flush(p->display) < 0 && errno != EAGAIN) return -1;
    return 1;
}

void fc_wl_presenter_stats(const fc_wl_presenter *p, int32_t *buffers, int64_t *presents,
                           int64_t *waits, int64_t *dropped) {
    if (!p) return;
    if (buffers) *buffers = p->made;
    if (presents) *presents = p->presents;
    if (waits) *waits = p->waits;
    if (dropped) *dropped = p->dropped;
}
