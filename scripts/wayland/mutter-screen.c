/* mutter's screen for tests: a screen cast of its monitor (org.gnome.Mutter.ScreenCast, a PipeWire
 * stream: grim has no screencopy to use on mutter), and touch through a remote desktop session
 * (org.gnome.Mutter.RemoteDesktop) tied to that cast, whose touch calls take the stream's pixels:
 *   mutter-screen [--input] NODEFILE CMD...
 *     writes the stream's PipeWire node id to NODEFILE once it is up (a frame of it:
 *     `gst-launch-1.0 pipewiresrc path=ID num-buffers=1 ! ...`), then runs the commands in turn:
 *       down SLOT X Y | move SLOT X Y | up SLOT     touch (--input), in the monitor's pixels
 *       point X Y | btn CODE 0|1                    the pointer (--input; evdev codes: 272 left)
 *       keysym SYM 0|1                              a key (--input; SYM a keysym, 0xffe1 Shift_L)
 *       sleep MS
 *     and ends both sessions after the last (they end with this connection anyway). Without
 *     --input no remote desktop session is made: the seat's devices stay as they are.
 * mutter makes its virtual touchscreen at the first touch call, and clients bind wl_touch only
 * then: that first touch reaches a client only if it bound wl_touch in time (start with one
 * where it does no harm, or where no window is).
 * Run as the compositor's user on its session bus, with PipeWire running there.
 * Build: cc mutter-screen.c $(pkg-config --cflags --libs gio-2.0) */
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static GDBusConnection *c;
static guint node_id;

static GVariant *call(const char *bus, const char *path, const char *iface, const char *m, GVariant *args, const GVariantType *ret) {
    GError *e = NULL;
    GVariant *r = g_dbus_connection_call_sync(c, bus, path, iface, m, args, ret, 0, 10000, NULL, &e);
    if (!r) { fprintf(stderr, "%s: %s\n", m, e->message); exit(1); }
    return r;
}

static void stream_added(GDBusConnection *conn, const char *sender, const char *path, const char *iface,
                         const char *signal, GVariant *params, gpointer data) {
    (void)conn; (void)sender; (void)path; (void)iface; (void)signal; (void)data;
    g_variant_get(params, "(u)", &node_id);
}

int main(int argc, char **argv) {
    int input = argc > 1 && !strcmp(argv[1], "--input");
    if (input) { argv++; argc--; }
    if (argc < 2) { fprintf(stderr, "usage: mutter-screen [--input] NODEFILE CMD...\n"); return 2; }
    GError *e = NULL;
    c = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &e);
    if (!c) { fprintf(stderr, "bus: %s\n", e->message); return 1; }
    const char *RD = "org.gnome.Mutter.RemoteDesktop", *SC = "org.gnome.Mutter.ScreenCast";
    GVariantBuilder b; g_variant_builder_init(&b, G_VARIANT_TYPE("a{sv}"));
    char *rd = NULL;
    GVariant *r;
    if (input) {
        r = call(RD, "/org/gnome/Mutter/RemoteDesktop", RD, "CreateSession", NULL, G_VARIANT_TYPE("(o)"));
        g_variant_get(r, "(o)", &rd); g_variant_unref(r);
        r = call(RD, rd, "org.freedesktop.DBus.Properties", "Get",
                 g_variant_new("(ss)", "org.gnome.Mutter.RemoteDesktop.Session", "SessionId"), G_VARIANT_TYPE("(v)"));
        GVariant *v; g_variant_get(r, "(v)", &v);
        g_variant_builder_add(&b, "{sv}", "remote-desktop-session-id", g_variant_new_string(g_variant_get_string(v, NULL)));
    }
    r = call(SC, "/org/gnome/Mutter/ScreenCast", SC, "CreateSession", g_variant_new("(a{sv})", &b), G_VARIANT_TYPE("(o)"));
    char *sc; g_variant_get(r, "(o)", &sc); g_variant_unref(r);
    GVariantBuilder p; g_variant_builder_init(&p, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&p, "{sv}", "cursor-mode", g_variant_new_uint32(0));   /* hidden */
    /* "" is the primary monitor */
    r = call(SC, sc, "org.gnome.Mutter.ScreenCast.Session", "RecordMonitor", g_variant_new("(sa{sv})", "", &p), G_VARIANT_TYPE("(o)"));
    char *stream; g_variant_get(r, "(o)", &stream); g_variant_unref(r);
    g_dbus_connection_signal_subscribe(c, SC, "org.gnome.Mutter.ScreenCast.Stream", "PipeWireStreamAdded", stream,
                                       NULL, G_DBUS_SIGNAL_FLAGS_NONE, stream_added, NULL, NULL);
    /* a linked cast starts with its remote desktop session */
    if (input) g_variant_unref(call(RD, rd, "org.gnome.Mutter.RemoteDesktop.Session", "Start", NULL, NULL));
    else g_variant_unref(call(SC, sc, "org.gnome.Mutter.ScreenCast.Session", "Start", NULL, NULL));
    for (int i = 0; i < 100 && !node_id; i++) {
        while (g_main_context_iteration(NULL, FALSE)) {}
        if (!node_id) usleep(50000);
    }
    if (!node_id) { fprintf(stderr, "no PipeWire stream in 5 s (is PipeWire running on this bus?)\n"); return 1; }
    char tmp[4096]; snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%u\n", node_id) < 0 || fclose(f) != 0 || rename(tmp, argv[1]) != 0) { perror(argv[1]); return 1; }
    const char *S = "org.gnome.Mutter.RemoteDesktop.Session";
    for (int i = 2; i < argc; i++) {
        int needs_input = !strcmp(argv[i], "down") || !strcmp(argv[i], "move") || !strcmp(argv[i], "up")
                    || !strcmp(argv[i], "point") || !strcmp(argv[i], "btn") || !strcmp(argv[i], "keysym");
        if (needs_input && !input) { fprintf(stderr, "%s needs --input\n", argv[i]); return 2; }
        if (!strcmp(argv[i], "down") && i + 3 < argc) {
            g_variant_unref(call(RD, rd, S, "NotifyTouchDown", g_variant_new("(sudd)", stream, (guint32)atoi(argv[i+1]), atof(argv[i+2]), atof(argv[i+3])), NULL)); i += 3;
        } else if (!strcmp(argv[i], "move") && i + 3 < argc) {
            g_variant_unref(call(RD, rd, S, "NotifyTouchMotion", g_variant_new("(sudd)", stream, (guint32)atoi(argv[i+1]), atof(argv[i+2]), atof(argv[i+3])), NULL)); i += 3;
        } else if (!strcmp(argv[i], "up") && i + 1 < argc) {
            g_variant_unref(call(RD, rd, S, "NotifyTouchUp", g_variant_new("(u)", (guint32)atoi(argv[i+1])), NULL)); i += 1;
        } else if (!strcmp(argv[i], "point") && i + 2 < argc) {
            g_variant_unref(call(RD, rd, S, "NotifyPointerMotionAbsolute", g_variant_new("(sdd)", stream, atof(argv[i+1]), atof(argv[i+2])), NULL)); i += 2;
        } else if (!strcmp(argv[i], "btn") && i + 2 < argc) {
            g_variant_unref(call(RD, rd, S, "NotifyPointerButton", g_variant_new("(ib)", atoi(argv[i+1]), atoi(argv[i+2]) != 0), NULL)); i += 2;
        } else if (!strcmp(argv[i], "keysym") && i + 2 < argc) {
            g_variant_unref(call(RD, rd, S, "NotifyKeyboardKeysym", g_variant_new("(ub)", (guint32)strtoul(argv[i+1], NULL, 0), atoi(argv[i+2]) != 0), NULL)); i += 2;
        } else if (!strcmp(argv[i], "sleep") && i + 1 < argc) {
            for (int ms = atoi(argv[++i]); ms > 0; ms -= 20) { while (g_main_context_iteration(NULL, FALSE)) {} usleep(20000); }
        } else { fprintf(stderr, "unknown command %s\n", argv[i]); return 2; }
    }
    if (input) g_variant_unref(call(RD, rd, S, "Stop", NULL, NULL));
    else g_variant_unref(call(SC, sc, "org.gnome.Mutter.ScreenCast.Session", "Stop", NULL, NULL));
    return 0;
}
