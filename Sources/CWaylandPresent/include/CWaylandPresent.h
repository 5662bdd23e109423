// Our own use of libwayland-client on SDL's Wayland connection: the registry probe made before
// SDL_Init (SDL 2.26 dies in SDL_Init on a compositor without a wl_seat), and a presenter that
// shows a window's pixels through wl_shm buffers on SDL's wl_surface (SDL 2.26 has no window
// surface on Wayland other than a GL renderer, which llvmpipe draws with the CPU at 6-10x the
// cost). The Wayland types stay in the C file: Swift passes SDL's handles through as pointers.
#ifndef FARCAST_CWAYLANDPRESENT_H
#define FARCAST_CWAYLANDPRESENT_H

#include <stdint.h>

/// What a compositor offers, probed on a connection of its own (closed again).
typedef enum {
    FC_WL_PROBE_UNREACHABLE = -1,  ///< no compositor at that name (or none named)
    FC_WL_PROBE_NO_SEAT = 0,       ///< connected, but the registry has no wl_seat
    FC_WL_PROBE_SEAT = 1,          ///< connected, and a wl_seat is offered
} fc_wl_probe_result;

/// Connects to `display_name` (NULL: $WAYLAND_DISPLAY), lists the globals, disconnects.
fc_wl_probe_result fc_wl_probe_seat(const char *display_name);

/// Draws into wl_shm buffers (XRGB8888, up to three, from one memfd pool each) and commits them
/// to a surface someone else made (SDL's). Main thread only: the thread SDL pumps events on.
typedef struct fc_wl_presenter fc_wl_presenter;

/// Binds wl_shm on `display` (a struct wl_display *) for `surface` (a struct wl_surface *).
/// NULL when the compositor has no wl_shm or memory runs out.
fc_wl_presenter *fc_wl_presenter_create(void *display, void *surface);
void fc_wl_presenter_destroy(fc_wl_presenter *p);

/// Copies the `count` rects (x, y, w, h in buffer pixels; clipped to the picture) of the picture
/// `pixels` (`width` x `height`, `pitch` bytes a row, XRGB8888) that changed since the last call
/// into a free buffer, together with what that buffer still lacks from earlier calls, attaches it,
/// damages those rects and commits. `count` 0 with `whole` set: everything changed. When every
/// buffer is still held by the compositor it waits up to `timeout_ms` for one to come back;
/// returns 1 when committed, 0 when none came back (the damage is kept for the next call), -1
/// when the connection failed or buffers could not be made.
int fc_wl_presenter_present(fc_wl_presenter *p, const void *pixels, int32_t width, int32_t height,
                            int32_t pitch, const int32_t *rects, int32_t count, int whole,
                            int timeout_ms);

/// Buffers made so far and presents that found no free buffer at once (for -v and tests).
void fc_wl_presenter_stats(const fc_wl_presenter *p, int32_t *buffers, int64_t *presents,
                           int64_t *waits, int64_t *dropped);

#endif
