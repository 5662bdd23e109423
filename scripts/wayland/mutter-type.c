// Types keysyms into mutter through its org.gnome.Mutter.RemoteDesktop D-Bus API (mutter has
// no virtual-keyboard protocol for wtype): one remote-desktop session, kept while it types
// (mutter ends a session when its D-Bus client goes away, so this must be one process).
// Run it as the compositor's user with its session bus:
//   cc -o mutter-type mutter-type.c $(pkg-config --cflags --libs gio-2.0 xkbcommon)
//   DBUS_SESSION_BUS_ADDRESS=... mutter-type [-d MS] KEY...
// KEY is an xkb keysym name (a, Udiaeresis, Return, Shift_L): pressed and released; +NAME only
// presses, -NAME only releases (modifiers around other keys: +Shift_L a -Shift_L).
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xkbcommon/xkbcommon.h>

static GVariant *call(GDBusConnection *bus, const char *path, const char *iface, const char *method, GVariant *args) {
    GError *err = NULL;
    GVariant *r = g_dbus_connection_call_sync(bus, "org.gnome.Mutter.RemoteDesktop", path, iface, method, args,
                                              NULL, G_DBUS_CALL_FLAGS_NONE, 5000, NULL, &err);
    if (!r) { fprintf(stderr, "mutter-type: %s: %s\n", method, err->message); exit(1); }
    return r;
}

static void key(GDBusConnection *bus, const char *session, xkb_keysym_t sym, gboolean down) {
    g_variant_unref(call(bus, session, "org.gnome.Mutter.RemoteDesktop.Session", "NotifyKeyboardKeysym",
                         g_variant_new("(ub)", sym, down)));
}

int main(int argc, char **argv) {
    int delay = 40, first = 1;
    if (argc > 2 && strcmp(argv[1], "-d") == 0) { delay = atoi(argv[2]); first = 3; }
    GError *err = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &err);
    if (!bus) { fprintf(stderr, "mutter-type: session bus: %s\n", err->message); return 1; }
    GVariant *r = call(bus, "/org/gnome/Mutter/RemoteDesktop", "org.gnome.Mutter.RemoteDesktop", "CreateSession", NULL);
    const char *session = NULL;
    g_variant_get(r, "(&o)", &session);
    g_variant_unref(call(bus, session, "org.gnome.Mutter.RemoteDesktop.Session", "Start", NULL));
    g_usleep(300 * 1000);   // the virtual keyboard appears; clients get its keymap first
    for (int i = first; i < argc; i++) {
        const char *name = argv[i];
        int mode = 0;   // 0 tap, 1 press, 2 release
        if (name[0] == '+' && name[1]) { mode = 1; name++; }
        else if (name[0] == '-' && name[1]) { mode = 2; name++; }
        xkb_keysym_t sym = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS);
        if (sym == XKB_KEY_NoSymbol) { fprintf(stderr, "mutter-type: no keysym %s\n", name); return 2; }
        if (mode != 2) key(bus, session, sym, TRUE);
        if (mode != 1) key(bus, session, sym, FALSE);
        g_usleep((gulong)delay * 1000);
    }
    g_usleep(200 * 1000);
    g_variant_unref(call(bus, session, "org.gnome.Mutter.RemoteDesktop.Session", "Stop", NULL));
    g_variant_unref(r);
    g_object_unref(bus);
    return 0;
}
