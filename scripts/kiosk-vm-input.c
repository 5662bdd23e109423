/* The kiosk VM test's hands on the panel (scripts/test-kiosk-vm.sh): a multi-touch screen and a
 * keyboard made with uinput inside the guest, before the kiosk starts, as real ones would be.
 * Compiled on the host (cc -static) into the VM's root.
 *
 *   farcast-test-input --daemon W H   makes both devices (the touch screen W x H, the panel's
 *                                     pixels), forks, and takes scripts on SOCKET
 *   farcast-test-input 'SCRIPT'       runs a script in the daemon, returns when it is done
 *
 * A script is commands separated by ';' (timing between events is the guest's own, so a tap is
 * a tap however slow the host is):
 *   tap X Y [MS]                  one finger down and up MS (60) later
 *   drag X1 Y1 X2 Y2 HOLD MS      one finger down, still for HOLD ms, moved to X2,Y2 over MS, up
 *   pinch CX CY D1 D2 MS          two fingers level about CX,CY, D1 apart to D2 apart over MS
 *   keys K1+K2+...                pressed in order, released in reverse (ctrl+alt+f2, alt+sysrq+h)
 *   type TEXT                     letters, digits, space and .,-/= (uppercase with shift); '\n' is Enter
 *   sleep MS
 * Key names: a-z, 0-9, f1-f12, ctrl, alt, shift, sysrq, esc, enter, backspace, space, tab, delete,
 *   backslash, minus, dot, comma, slash, equal.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SOCKET_PATH "/run/farcast-test-input.sock"
#define STEP_MS 16 /* a finger's moves come at a panel's report rate, about 60 Hz */

static int touch_fd = -1, key_fd = -1;
static int panel_w, panel_h;
static int next_tracking_id = 1;

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "farcast-test-input: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (%s)\n", strerror(errno));
    va_end(ap);
    exit(1);
}

static void sleep_ms(int ms) {
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

static void emit(int fd, int type, int code, int value) {
    struct input_event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.code = code;
    e.value = value;
    if (write(fd, &e, sizeof e) != (ssize_t)sizeof e) die("write event");
}

static void syn(int fd) { emit(fd, EV_SYN, SYN_REPORT, 0); }

static void abs_axis(int fd, int code, int max) {
    struct uinput_abs_setup a;
    memset(&a, 0, sizeof a);
    a.code = code;
    a.absinfo.minimum = 0;
    a.absinfo.maximum = max;
    if (ioctl(fd, UI_ABS_SETUP, &a) < 0) die("UI_ABS_SETUP %d", code);
}

static int make_device(const char *name, int product, void (*caps)(int)) {
    int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK);
    if (fd < 0) die("open /dev/uinput");
    caps(fd);
    struct uinput_setup s;
    memset(&s, 0, sizeof s);
    s.id.bustype = BUS_VIRTUAL;
    s.id.vendor = 0x4641; /* "FA" */
    s.id.product = product;
    snprintf(s.name, sizeof s.name, "%s", name);
    if (ioctl(fd, UI_DEV_SETUP, &s) < 0) die("UI_DEV_SETUP");
    if (ioctl(fd, UI_DEV_CREATE) < 0) die("UI_DEV_CREATE");
    return fd;
}

/* A direct touch screen as udev's input_id sees one (ID_INPUT_TOUCHSCREEN): BTN_TOUCH, absolute
 * X and Y, INPUT_PROP_DIRECT; multi-touch protocol B with ten slots. The axes go to W and H so
 * that SDL's (value - min) / (max - min) times the screen's size is the pixel itself. */
static void touch_caps(int fd) {
    ioctl(fd, UI_SET_EVBIT, EV_KEY);
    ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH);
    ioctl(fd, UI_SET_EVBIT, EV_ABS);
    ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT);
    abs_axis(fd, ABS_X, panel_w);
    abs_axis(fd, ABS_Y, panel_h);
    abs_axis(fd, ABS_MT_SLOT, 9);
    abs_axis(fd, ABS_MT_TRACKING_ID, 65535);
    abs_axis(fd, ABS_MT_POSITION_X, panel_w);
    abs_axis(fd, ABS_MT_POSITION_Y, panel_h);
}

static void key_caps(int fd) {
    ioctl(fd, UI_SET_EVBIT, EV_KEY);
    for (int k = KEY_ESC; k <= KEY_MICMUTE; k++) ioctl(fd, UI_SET_KEYBIT, k);
}

/* ---- fingers */
static int fingers_down;

static void finger(int slot, int x, int y, int phase) { /* phase: 0 down, 1 move, 2 up */
    emit(touch_fd, EV_ABS, ABS_MT_SLOT, slot);
    if (phase == 2) {
        emit(touch_fd, EV_ABS, ABS_MT_TRACKING_ID, -1);
        if (--fingers_down == 0) emit(touch_fd, EV_KEY, BTN_TOUCH, 0);
        return;
    }
    if (phase == 0) {
        emit(touch_fd, EV_ABS, ABS_MT_TRACKING_ID, next_tracking_id++ & 0xffff);
        if (fingers_down++ == 0) emit(touch_fd, EV_KEY, BTN_TOUCH, 1);
    }
    emit(touch_fd, EV_ABS, ABS_MT_POSITION_X, x);
    emit(touch_fd, EV_ABS, ABS_MT_POSITION_Y, y);
    if (slot == 0) {
        emit(touch_fd, EV_ABS, ABS_X, x);
        emit(touch_fd, EV_ABS, ABS_Y, y);
    }
}

static void tap(int x, int y, int ms) {
    finger(0, x, y, 0);
    syn(touch_fd);
    sleep_ms(ms);
    finger(0, x, y, 2);
    syn(touch_fd);
}

static void drag(int x1, int y1, int x2, int y2, int hold, int ms) {
    finger(0, x1, y1, 0);
    syn(touch_fd);
    sleep_ms(hold);
    int steps = ms / STEP_MS > 1 ? ms / STEP_MS : 1;
    for (int i = 1; i <= steps; i++) {
        sleep_ms(STEP_MS);
        finger(0, x1 + (x2 - x1) * i / steps, y1 + (y2 - y1) * i / steps, 1);
        syn(touch_fd);
    }
    sleep_ms(STEP_MS);
    finger(0, x2, y2, 2);
    syn(touch_fd);
}

static void pinch(int cx, int cy, int d1, int d2, int ms) {
    finger(0, cx - d1 / 2, cy, 0);
    finger(1, cx + d1 / 2, cy, 0);
    syn(touch_fd);
    int steps = ms / STEP_MS > 1 ? ms / STEP_MS : 1;
    for (int i = 1; i <= steps; i++) {
        sleep_ms(STEP_MS);
        int d = d1 + (d2 - d1) * i / steps;
        finger(0, cx - d / 2, cy, 1);
        finger(1, cx + d / 2, cy, 1);
        syn(touch_fd);
    }
    sleep_ms(STEP_MS);
    finger(0, cx - d2 / 2, cy, 2);
    finger(1, cx + d2 / 2, cy, 2);
    syn(touch_fd);
}

/* ---- keys */
static int key_code(const char *name) {
    static const int letters[26] = {KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F, KEY_G, KEY_H, KEY_I,
                                    KEY_J, KEY_K, KEY_L, KEY_M, KEY_N, KEY_O, KEY_P, KEY_Q, KEY_R,
                                    KEY_S, KEY_T, KEY_U, KEY_V, KEY_W, KEY_X, KEY_Y, KEY_Z};
    static const int digits[10] = {KEY_0, KEY_1, KEY_2, KEY_3, KEY_4, KEY_5, KEY_6, KEY_7, KEY_8, KEY_9};
    static const int fkeys[12] = {KEY_F1, KEY_F2, KEY_F3, KEY_F4, KEY_F5, KEY_F6,
                                  KEY_F7, KEY_F8, KEY_F9, KEY_F10, KEY_F11, KEY_F12};
    if (strlen(name) == 1 && name[0] >= 'a' && name[0] <= 'z') return letters[name[0] - 'a'];
    if (strlen(name) == 1 && isdigit((unsigned char)name[0])) return digits[name[0] - '0'];
    if (name[0] == 'f' && isdigit((unsigned char)name[1])) {
        int n = atoi(name + 1);
        if (n >= 1 && n <= 12) return fkeys[n - 1];
    }
    static const struct { const char *name; int code; } named[] = {
        {"ctrl", KEY_LEFTCTRL}, {"alt", KEY_LEFTALT}, {"shift", KEY_LEFTSHIFT}, {"sysrq", KEY_SYSRQ},
        {"esc", KEY_ESC}, {"enter", KEY_ENTER}, {"backspace", KEY_BACKSPACE}, {"space", KEY_SPACE},
        {"tab", KEY_TAB}, {"minus", KEY_MINUS}, {"dot", KEY_DOT}, {"comma", KEY_COMMA},
        {"slash", KEY_SLASH}, {"equal", KEY_EQUAL}, {"delete", KEY_DELETE}, {"backslash", KEY_BACKSLASH}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strcmp(name, named[i].name) == 0) return named[i].code;
    return -1;
}

/* A key event, then a pause: 100 ms, a quick typist's pace. Much quicker and a viewer that is
 * busy drawing for a moment (software GL in an emulated guest) can let the kernel's buffer for
 * the device (64 events) overflow, which drops the oldest keys. */
static void press(int code, int down) {
    emit(key_fd, EV_KEY, code, down);
    syn(key_fd);
    sleep_ms(100);
}

static int combo(char *spec) {
    int codes[8], n = 0;
    for (char *k = strtok(spec, "+"); k && n < 8; k = strtok(NULL, "+")) {
        if ((codes[n++] = key_code(k)) < 0) return -1;
    }
    for (int i = 0; i < n; i++) press(codes[i], 1);
    for (int i = n - 1; i >= 0; i--) press(codes[i], 0);
    return 0;
}

static int type_text(const char *s) {
    for (; *s; s++) {
        int shift = isupper((unsigned char)*s), code;
        char one[2] = {(char)tolower((unsigned char)*s), 0};
        switch (*s) {
        case ' ': code = KEY_SPACE; break;
        case '\n': code = KEY_ENTER; break;
        case '.': code = KEY_DOT; break;
        case ',': code = KEY_COMMA; break;
        case '-': code = KEY_MINUS; break;
        case '/': code = KEY_SLASH; break;
        case '=': code = KEY_EQUAL; break;
        default: code = key_code(one);
        }
        if (code < 0) return -1;
        if (shift) press(KEY_LEFTSHIFT, 1);
        press(code, 1);
        press(code, 0);
        if (shift) press(KEY_LEFTSHIFT, 0);
    }
    return 0;
}

/* One command; 0 when done, -1 when not understood. */
static int run_command(char *cmd) {
    while (isspace((unsigned char)*cmd)) cmd++;
    if (*cmd == 0) return 0;
    char word[16] = {0};
    int used = 0, a[6] = {0};
    if (sscanf(cmd, "%15s %n", word, &used) < 1) return -1;
    char *rest = cmd + used;
    if (strcmp(word, "tap") == 0) {
        int n = sscanf(rest, "%d %d %d", &a[0], &a[1], &a[2]);
        if (n < 2) return -1;
        tap(a[0], a[1], n == 3 ? a[2] : 60);
    } else if (strcmp(word, "drag") == 0) {
        if (sscanf(rest, "%d %d %d %d %d %d", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) != 6) return -1;
        drag(a[0], a[1], a[2], a[3], a[4], a[5]);
    } else if (strcmp(word, "pinch") == 0) {
        if (sscanf(rest, "%d %d %d %d %d", &a[0], &a[1], &a[2], &a[3], &a[4]) != 5) return -1;
        pinch(a[0], a[1], a[2], a[3], a[4]);
    } else if (strcmp(word, "keys") == 0) {
        char spec[64];
        if (sscanf(rest, "%63s", spec) != 1) return -1;
        return combo(spec);
    } else if (strcmp(word, "type") == 0) {
        char text[256];
        size_t n = 0;
        for (const char *p = rest; *p && n < sizeof text - 1; p++) {
            if (p[0] == '\\' && p[1] == 'n') { text[n++] = '\n'; p++; } else text[n++] = *p;
        }
        text[n] = 0;
        return type_text(text);
    } else if (strcmp(word, "sleep") == 0) {
        if (sscanf(rest, "%d", &a[0]) != 1) return -1;
        sleep_ms(a[0]);
    } else {
        return -1;
    }
    return 0;
}

static void serve(int listener) {
    for (;;) {
        int c = accept(listener, NULL, NULL);
        if (c < 0) continue;
        char buf[4096];
        size_t n = 0;
        ssize_t r;
        while (n < sizeof buf - 1 && (r = read(c, buf + n, sizeof buf - 1 - n)) > 0) {
            n += (size_t)r;
            if (memchr(buf, '\n', n)) break;
        }
        buf[n] = 0;
        char *nl = strchr(buf, '\n');
        if (nl) *nl = 0;
        const char *answer = "ok\n";
        char *save = NULL;
        for (char *cmd = strtok_r(buf, ";", &save); cmd; cmd = strtok_r(NULL, ";", &save)) {
            if (run_command(cmd) < 0) { answer = "error: a command was not understood\n"; break; }
        }
        if (write(c, answer, strlen(answer)) < 0) {}
        close(c);
    }
}

int main(int argc, char **argv) {
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", SOCKET_PATH);
    if (argc == 4 && strcmp(argv[1], "--daemon") == 0) {
        panel_w = atoi(argv[2]);
        panel_h = atoi(argv[3]);
        if (panel_w <= 0 || panel_h <= 0) die("bad panel size");
        touch_fd = make_device("Farcast test touch screen", 1, touch_caps);
        key_fd = make_device("Farcast test keyboard", 2, key_caps);
        unlink(SOCKET_PATH);
        int l = socket(AF_UNIX, SOCK_STREAM, 0);
        if (l < 0 || bind(l, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(l, 4) < 0) die("listen on %s", SOCKET_PATH);
        chmod(SOCKET_PATH, 0600);
        /* systemd (Type=forking) counts it started when the parent exits: the devices exist */
        pid_t p = fork();
        if (p < 0) die("fork");
        if (p > 0) return 0;
        setsid();
        serve(l);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: farcast-test-input --daemon W H | farcast-test-input 'SCRIPT'\n");
        return 2;
    }
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr) < 0) die("connect to %s", SOCKET_PATH);
    char line[4096];
    snprintf(line, sizeof line, "%s\n", argv[1]);
    if (write(s, line, strlen(line)) < 0) die("write");
    char answer[256];
    ssize_t n = read(s, answer, sizeof answer - 1);
    if (n <= 0) die("no answer");
    answer[n] = 0;
    fputs(answer, strncmp(answer, "ok", 2) == 0 ? stdout : stderr);
    return strncmp(answer, "ok", 2) == 0 ? 0 : 1;
}
