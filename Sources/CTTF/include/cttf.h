/* SDL2_ttf loaded on first need: the viewer does not link it, so a session that never draws
 * text (no menu, no prompt, no notice) never maps it nor FreeType, HarfBuzz, GLib and the rest
 * it needs (1.6 MB of the window's resident memory, and their relocations at start-up).
 * cttf_load() opens it by its soname; the cttf_ functions are SDL2_ttf's own, called through
 * what dlsym found, and valid only after cttf_load() succeeded (the freeing ones do nothing
 * before). */
#ifndef FARCAST_CTTF_H
#define FARCAST_CTTF_H

#include <stddef.h>
#include <SDL2/SDL_ttf.h>

/* 0 once the library and every function are there (loaded once per process, thread-safe);
 * otherwise -1, with what failed (dlerror's words) in `why`. */
int cttf_load(char *why, size_t why_size);

int cttf_TTF_Init(void);
void cttf_TTF_Quit(void);
TTF_Font *cttf_TTF_OpenFont(const char *file, int ptsize);
void cttf_TTF_CloseFont(TTF_Font *font);
void cttf_TTF_SetFontWrappedAlign(TTF_Font *font, int align);
int cttf_TTF_FontLineSkip(const TTF_Font *font);
int cttf_TTF_SizeUTF8(TTF_Font *font, const char *text, int *w, int *h);
SDL_Surface *cttf_TTF_RenderUTF8_Blended(TTF_Font *font, const char *text, SDL_Color fg);
SDL_Surface *cttf_TTF_RenderUTF8_Blended_Wrapped(TTF_Font *font, const char *text, SDL_Color fg, Uint32 wrapLength);

#endif
