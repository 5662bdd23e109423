#ifndef FARCAST_WAYLAND_SELECTION_H
#define FARCAST_WAYLAND_SELECTION_H

#include <stddef.h>

/* The Wayland clipboard (wl_data_device) and primary selection (zwp_primary_selection_v1) on
 * SDL's own wl_display, bound apart from SDL's so that the reading and writing are ours: SDL 2.26
 * reads a selection on the main thread with no size cap (an owner that writes forever hangs it)
 * and gives up on a pipe quiet for 14 ms (a slow owner's text arrives cut short).
 *
 * Protocol only: the proxies live on the default queue, so SDL's event pump dispatches their
 * events on the main thread, and the callbacks run there. The pipes' reading and writing are the
 * caller's (on threads of its own); fc_wlsel_write_fd is the blocking writer for such a thread. */

struct wl_display;
typedef struct fc_wlsel fc_wlsel;

enum { FC_WLSEL_CLIPBOARD = 0, FC_WLSEL_PRIMARY = 1 };

typedef struct {
    void *context;
    /* A new selection was offered (or it went away); has_text: it offers a text type. */
    void (*changed)(void *context, int selection, int has_text);
    /* Another client asks for the text we set: write it to fd, then close fd (the callee owns it). */
    void (*send)(void *context, int selection, int fd);
} fc_wlsel_callbacks;

/* NULL when the compositor has no wl_seat or no wl_data_device_manager. Main thread. */
fc_wlsel *fc_wlsel_create(struct wl_display *display, fc_wlsel_callbacks callbacks);
void fc_wlsel_destroy(fc_wlsel *s);
/* Whether the compositor offers zwp_primary_selection_device_manager_v1. */
int fc_wlsel_has_primary(const fc_wlsel *s);
/* Whether the current offer of `selection` is the one we set (our marker type is in it). */
int fc_wlsel_is_ours(const fc_wlsel *s, int selection);
/* Asks the owner of `selection` for its text: the pipe's read end (O_CLOEXEC, the caller closes
 * it), or -1 when nothing with text is offered. The MIME type asked for goes into *mime_out
 * (static storage) when not NULL. */
int fc_wlsel_receive(fc_wlsel *s, int selection, const char **mime_out);
/* Offers our text as `selection`; `send` is called for each client that asks. 0 when the
 * request went out, -1 when the selection is not available. *had_serial: whether an input
 * serial was known (without one the compositor may refuse it; wlroots does). */
int fc_wlsel_set(fc_wlsel *s, int selection, int *had_serial);
/* Writes len bytes of buf to fd within timeout_ms in all, SIGPIPE held off on this thread:
 * the bytes written (less than len when the reader went away or was too slow). Any thread. */
size_t fc_wlsel_write_fd(int fd, const void *buf, size_t len, int timeout_ms);

#endif
