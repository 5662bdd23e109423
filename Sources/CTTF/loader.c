/* See cttf.h. Each pointer has the type of SDL2_ttf's own declaration (__typeof__), so a
 * wrapper that passed the wrong arguments would not compile. */
#include "cttf.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* every SDL2_ttf 2.x has this soname (SDL 3's is libSDL3_ttf.so.0) */
static const char *const soname = "libSDL2_ttf-2.0.so.0";

#define FUNCTIONS(X) \
    X(TTF_Init) X(TTF_Quit) X(TTF_OpenFont) X(TTF_CloseFont) X(TTF_SetFontWrappedAlign) \
    X(TTF_FontLineSkip) X(TTF_SizeUTF8) X(TTF_RenderUTF8_Blended) X(TTF_RenderUTF8_Blended_Wrapped)

#define POINTER(name) static __typeof__(name) *p_##name;
FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;   /* -1 not tried, 0 loaded, 1 failed */
static char failure[256];

static void load(void) {
    /* RTLD_LOCAL: nothing else in the process sees its symbols; SDL2 itself is already there */
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(failure, sizeof failure, "%s", e ? e : soname);
        loaded = 1;
        return;
    }
#define RESOLVE(name) \
    if (!(p_##name = (__typeof__(name) *)dlsym(h, #name))) { \
        snprintf(failure, sizeof failure, "%s has no %s", soname, #name); \
        loaded = 1; \
        return; \
    }
    FUNCTIONS(RESOLVE)
    /* the handle stays open for the process's life: fonts may outlive any one window */
    loaded = 0;
}

int cttf_load(char *why, size_t why_size) {
    pthread_once(&once, load);
    if (loaded == 0) return 0;
    if (why && why_size) snprintf(why, why_size, "%s", failure);
    return -1;
}

int cttf_TTF_Init(void) { return p_TTF_Init(); }
void cttf_TTF_Quit(void) { if (p_TTF_Quit) p_TTF_Quit(); }
TTF_Font *cttf_TTF_OpenFont(const char *file, int ptsize) { return p_TTF_OpenFont(file, ptsize); }
void cttf_TTF_CloseFont(TTF_Font *font) { if (p_TTF_CloseFont) p_TTF_CloseFont(font); }
void cttf_TTF_SetFontWrappedAlign(TTF_Font *font, int align) { p_TTF_SetFontWrappedAlign(font, align); }
int cttf_TTF_FontLineSkip(const TTF_Font *font) { return p_TTF_FontLineSkip(font); }
int cttf_TTF_SizeUTF8(TTF_Font *font, const char *text, int *w, int *h) { return p_TTF_SizeUTF8(font, text, w, h); }
SDL_Surface *cttf_TTF_RenderUTF8_Blended(TTF_Font *font, const char *text, SDL_Color fg) {
    return p_TTF_RenderUTF8_Blended(font, text, fg);
}
SDL_Surface *cttf_TTF_RenderUTF8_Blended_Wrapped(TTF_Font *font, const char *text, SDL_Color fg, Uint32 wrapLength) {
    return p_TTF_RenderUTF8_Blended_Wrapped(font, text, fg, wrapLength);
}
