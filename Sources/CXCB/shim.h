// XCB and its XFixes extension: the clipboard's own X selection reader (INCR transfers and
// selection-change notification, which SDL 2.26 lacks).
#include <stdlib.h>
#include <xcb/xcb.h>
#include <xcb/xfixes.h>
#include <X11/Xlib.h>  // an error handler of our own: StaleWakeups.swift

/// The extension's id is a mutable C global; Swift 6 does not let code take its address.
static inline xcb_extension_t *farcast_xcb_xfixes_id(void) { return &xcb_xfixes_id; }

