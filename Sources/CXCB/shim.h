// XCB and its XFixes extension: the clipboard's own X selection reader (INCR transfers and
// selection-change notification, which SDL 2.26 lacks); MIT-SHM: the window shown straight
// from the framebuffer's memory (X11Presenter.swift); xkbcommon-x11: the X server's own
// keymap for the key translation (X11Keymap.swift).
#include <stdlib.h>
#include <xcb/xcb.h>
#include <xcb/xfixes.h>
#include <xcb/shm.h>
#include <sys/shm.h>
#include <xkbcommon/xkbcommon-x11.h>
#include <X11/Xlib.h>  // an error handler of our own: StaleWakeups.swift

/// The extension's id is a mutable C global; Swift 6 does not let code take its address.
static inline xcb_extension_t *farcast_xcb_xfixes_id(void) { return &xcb_xfixes_id; }

static inline xcb_extension_t *farcast_xcb_shm_id(void) { return &xcb_shm_id; }
