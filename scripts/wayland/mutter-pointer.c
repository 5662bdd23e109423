/* Pointer input for mutter (--headless), which has no virtual-pointer protocol: its
 * org.gnome.Mutter.RemoteDesktop D-Bus API on the compositor's session bus (the session lives as
 * long as this connection, so one process does a whole sequence):
 *   mutter-pointer CMD...   rel DX DY | btn CODE 0|1 (evdev codes: 272 left) | sleep MS
 *                           | axis DX DY FLAGS (smooth scroll; FLAGS: 1 finish, 2 wheel, 4 finger, 8 continuous)
 *                           | discrete AXIS STEPS (wheel clicks; AXIS 0 vertical, 1 horizontal)
 * Run as the compositor's user with its DBUS_SESSION_BUS_ADDRESS (the window tests do).
 * Build: cc mutter-pointer.c $(pkg-config --cflags --libs gio-2.0) */
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static GDBusConnection *c;
static void call(const char *path, const char *iface, const char *m, GVariant *args) {
    GError *e = NULL;
    GVariant *r = g_dbus_connection_call_sync(c, "org.gnome.Mutter.RemoteDesktop", path, iface, m, args, NULL, 0, 5000, NULL, &e);
    if (!r) { fprintf(stderr, "%s: %s\n", m, e->message); exit(1); }
    g_variant_unref(r);
}
int main(int argc, char **argv) {
    GError *e = NULL;
    c = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &e);
    if (!c) { fprintf(stderr, "bus: %s\n", e->message); return 1; }
    GVariant *r = g_dbus_connection_call_sync(c, "org.gnome.Mutter.RemoteDesktop", "/org/gnome/Mutter/RemoteDesktop",
        "org.gnome.Mutter.RemoteDesktop", "CreateSession", NULL, G_VARIANT_TYPE("(o)"), 0, 5000, NULL, &e);
    if (!r) { fprintf(stderr, "CreateSession: %s\n", e->message); return 1; }
    const char *path; g_variant_get(r, "(&o)", &path);
    char *p = g_strdup(path);
    const char *S = "org.gnome.Mutter.RemoteDesktop.Session";
    call(p, S, "Start", NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "rel")) { call(p, S, "NotifyPointerMotionRelative", g_variant_new("(dd)", atof(argv[i+1]), atof(argv[i+2]))); i += 2; }
        else if (!strcmp(argv[i], "btn")) { call(p, S, "NotifyPointerButton", g_variant_new("(ib)", atoi(argv[i+1]), atoi(argv[i+2]) != 0)); i += 2; }
        else if (!strcmp(argv[i], "axis")) { call(p, S, "NotifyPointerAxis", g_variant_new("(ddu)", atof(argv[i+1]), atof(argv[i+2]), (guint32)atoi(argv[i+3]))); i += 3; }
        else if (!strcmp(argv[i], "discrete")) { call(p, S, "NotifyPointerAxisDiscrete", g_variant_new("(ui)", (guint32)atoi(argv[i+1]), atoi(argv[i+2]))); i += 2; }
        else if (!strcmp(argv[i], "sleep")) { usleep(atoi(argv[++i]) * 1000); }
    }
    usleep(300000);
    call(p, S, "Stop", NULL);
    return 0;
}
