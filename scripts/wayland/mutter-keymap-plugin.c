/* A mutter plugin for tests: a keymap change mid-session. Bare mutter has no way to change its
 * keymap at run time (GNOME Shell's input sources call meta_backend_set_keymap; mutter itself
 * reads no setting for it), so this plugin does what the Shell does, on a signal:
 *   SIGUSR1: the keymap becomes the layouts named in $XDG_RUNTIME_DIR/farcast-keymap
 *            (one line, e.g. "de" or "us,de"), as the Shell sets it when the user switches.
 * It implements nothing else: mutter does the default for every window effect it leaves out.
 *   mutter --mutter-plugin=/path/mutter-keymap-plugin.so ...   (scripts/wayland-session.sh --mutter-plugin)
 * Build: cc -shared -fPIC -o mutter-keymap-plugin.so mutter-keymap-plugin.c $(pkg-config --cflags --libs libmutter-11) */
#include <glib-unix.h>
#include <meta/meta-backend.h>
#include <meta/meta-plugin.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

typedef struct { MetaPlugin parent; } KeymapPlugin;
typedef struct { MetaPluginClass parent_class; } KeymapPluginClass;

META_PLUGIN_DECLARE(KeymapPlugin, keymap_plugin);

static gboolean switch_keymap(gpointer data) {
    (void)data;
    const char *dir = g_getenv("XDG_RUNTIME_DIR");
    char *path = g_build_filename(dir ? dir : "/tmp", "farcast-keymap", NULL);
    char *text = NULL;
    if (g_file_get_contents(path, &text, NULL, NULL)) {
        g_strstrip(text);
        g_message("farcast keymap plugin: layouts %s", text);
        meta_backend_set_keymap(meta_get_backend(), text, "", "");
        g_free(text);
    } else {
        g_warning("farcast keymap plugin: no %s", path);
    }
    g_free(path);
    return G_SOURCE_CONTINUE;
}

static void start(MetaPlugin *plugin) {
    (void)plugin;
    g_unix_signal_add(SIGUSR1, switch_keymap, NULL);
}

static void keymap_plugin_init(KeymapPlugin *self) { (void)self; }

static void keymap_plugin_class_init(KeymapPluginClass *klass) {
    META_PLUGIN_CLASS(klass)->start = start;
}
