// What presenting a changing 1024x768 picture costs on a Wayland compositor without a GPU, per
// path, with the same work in each: every frame scrolls the picture one text line (a full-window
// change, as `yes` in an xterm), FPS frames a second for SECONDS seconds, presents paced by us
// (no vsync). Prints this process's CPU (utime+stime) and the frames that went out.
//   opengl | opengles2   SDL renderer (llvmpipe), a streaming texture updated whole, RenderCopy, Present
//   surface              SDL_GetWindowSurface: on Wayland SDL 2.26 emulates it with a GL(ES) renderer
//   shm                  our own wl_shm buffers attached to SDL's wl_surface (SDL_GetWindowWMInfo);
//                        SDL makes the window and its xdg_toplevel, we only attach, damage, commit
// Build: cc -O2 -o present-bench present-bench.c $(pkg-config --cflags --libs sdl2 wayland-client)
// Run:   SDL_VIDEODRIVER=wayland ./present-bench shm 40 20
#define _GNU_SOURCE
#include <SDL.h>
#include <SDL_syswm.h>
#include <wayland-client.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

enum { W = 1024, H = 768, LINE = 16 };
static uint32_t *picture;

static void scroll(int frame) {
    memmove(picture, picture + W * LINE, (size_t)W * (H - LINE) * 4);
    for (int y = H - LINE; y < H; y++)
        for (int x = 0; x < W; x++)
            picture[y * W + x] = ((x / 8 + frame) % 3 == 0 && (y % LINE) < 12) ? 0xffe0e0e0u : 0xff202020u;
}

static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// --- our own wl_shm buffers on SDL's surface
static struct wl_shm *shm;
struct buf { struct wl_buffer *b; uint32_t *px; int busy; };
static struct buf bufs[2];
static void reg_global(void *d, struct wl_registry *r, uint32_t name, const char *iface, uint32_t v) {
    if (!strcmp(iface, "wl_shm")) shm = wl_registry_bind(r, name, &wl_shm_interface, 1);
}
static void reg_remove(void *d, struct wl_registry *r, uint32_t name) {}
static const struct wl_registry_listener reg_listener = { reg_global, reg_remove };
static void buf_release(void *d, struct wl_buffer *b) { ((struct buf *)d)->busy = 0; }
static const struct wl_buffer_listener buf_listener = { buf_release };

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "shm";
    int fps = argc > 2 ? atoi(argv[2]) : 40, seconds = argc > 3 ? atoi(argv[3]) : 20;
    if (!strcmp(mode, "opengl") || !strcmp(mode, "opengles2")) SDL_SetHint(SDL_HINT_RENDER_DRIVER, mode);
    if (SDL_Init(SDL_INIT_VIDEO) != 0) { fprintf(stderr, "SDL_Init: %s\n", SDL_GetError()); return 1; }
    SDL_Window *win = SDL_CreateWindow("present-bench", 0, 0, W, H, 0);
    if (!win) { fprintf(stderr, "window: %s\n", SDL_GetError()); return 1; }
    picture = calloc((size_t)W * H, 4);
    SDL_Renderer *r = NULL; SDL_Texture *t = NULL; SDL_Surface *s = NULL;
    struct wl_display *dpy = NULL; struct wl_surface *surf = NULL;
    if (!strcmp(mode, "shm")) {
        SDL_SysWMinfo info; SDL_VERSION(&info.version);
        if (!SDL_GetWindowWMInfo(win, &info) || info.subsystem != SDL_SYSWM_WAYLAND) { fprintf(stderr, "not Wayland\n"); return 1; }
        dpy = info.info.wl.display; surf = info.info.wl.surface;
        struct wl_event_queue *q = wl_display_create_queue(dpy);
        struct wl_registry *reg = wl_display_get_registry(dpy);
        wl_proxy_set_queue((struct wl_proxy *)reg, q);
        wl_registry_add_listener(reg, &reg_listener, NULL);
        wl_display_roundtrip_queue(dpy, q);
        if (!shm) { fprintf(stderr, "no wl_shm\n"); return 1; }
        // back to the default queue (SDL dispatches it): the pool and buffers made from it go
        // there too, and so do their release events
        wl_proxy_set_queue((struct wl_proxy *)shm, NULL);
        int fd = memfd_create("present-bench", MFD_CLOEXEC);
        size_t one = (size_t)W * H * 4;
        if (ftruncate(fd, (off_t)(2 * one)) != 0) return 1;
        uint8_t *mem = mmap(NULL, 2 * one, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, (int32_t)(2 * one));
        for (int i = 0; i < 2; i++) {
            bufs[i].b = wl_shm_pool_create_buffer(pool, (int32_t)(i * one), W, H, W * 4, WL_SHM_FORMAT_XRGB8888);
            bufs[i].px = (uint32_t *)(mem + i * one);
            wl_buffer_add_listener(bufs[i].b, &buf_listener, &bufs[i]);   // default queue: SDL dispatches it
        }
        wl_shm_pool_destroy(pool);
        close(fd);
    } else if (!strcmp(mode, "surface")) {
        s = SDL_GetWindowSurface(win);
        if (!s) { fprintf(stderr, "SDL_GetWindowSurface: %s\n", SDL_GetError()); return 1; }
    } else {
        r = SDL_CreateRenderer(win, -1, SDL_RENDERER_ACCELERATED);
        if (!r) { fprintf(stderr, "renderer: %s\n", SDL_GetError()); return 1; }
        t = SDL_CreateTexture(r, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING, W, H);
        SDL_RendererInfo ri; SDL_GetRendererInfo(r, &ri);
        fprintf(stderr, "renderer %s\n", ri.name);
    }
    // settle: the window mapped and configured
    for (int i = 0; i < 20; i++) { SDL_Event e; while (SDL_PollEvent(&e)) {} SDL_Delay(50); }
    int frames = 0, skipped = 0, total = fps * seconds;
    double c0 = cpu_seconds();
    Uint64 start = SDL_GetPerformanceCounter(), hz = SDL_GetPerformanceFrequency();
    for (int f = 0; f < total; f++) {
        SDL_Event e; while (SDL_PollEvent(&e)) {}
        scroll(f);
        if (dpy) {
            struct buf *b = !bufs[0].busy ? &bufs[0] : !bufs[1].busy ? &bufs[1] : NULL;
            if (!b) { skipped++; }
            else {
                memcpy(b->px, picture, (size_t)W * H * 4);
                b->busy = 1;
                wl_surface_attach(surf, b->b, 0, 0);
                wl_surface_damage(surf, 0, 0, W, H);
                wl_surface_commit(surf);
                wl_display_flush(dpy);
                frames++;
            }
        } else if (s) {
            SDL_LockSurface(s);
            for (int y = 0; y < H && y < s->h; y++) memcpy((uint8_t *)s->pixels + y * s->pitch, picture + y * W, (size_t)(W < s->w ? W : s->w) * 4);
            SDL_UnlockSurface(s);
            SDL_UpdateWindowSurface(win);
            frames++;
        } else {
            SDL_UpdateTexture(t, NULL, picture, W * 4);
            SDL_RenderCopy(r, t, NULL, NULL);
            SDL_RenderPresent(r);
            frames++;
        }
        Uint64 due = start + (Uint64)(f + 1) * hz / (Uint64)fps, now = SDL_GetPerformanceCounter();
        if (due > now) SDL_Delay((Uint32)((due - now) * 1000 / hz));
    }
    double wall = (double)(SDL_GetPerformanceCounter() - start) / (double)hz, cpu = cpu_seconds() - c0;
    printf("%-10s %4d frames (%d skipped) in %.1f s: CPU %.2f s = %.0f%% of a core, %.2f ms a frame\n",
           mode, frames, skipped, wall, cpu, 100 * cpu / wall, frames ? 1000 * cpu / frames : 0);
    SDL_Quit();
    return 0;
}
