// A minimal SDL 2 window that prints its key events, to try SDL 2.26's Wayland keyboard with
// wtype (scripts/wayland/keyboard-crash.sh). Built twice:
//   cc -o sdl-keys sdl-keys.c $(pkg-config --cflags --libs sdl2)
//   cc -DGUARD -o sdl-keys-guarded sdl-keys.c xkb-guard.c -ldl $(pkg-config --cflags --libs sdl2 xkbcommon) \
//      -Wl,--export-dynamic-symbol=xkb_keymap_key_get_syms_by_level -Wl,--export-dynamic-symbol=xkb_state_update_mask \
//      -Wl,--export-dynamic-symbol=xkb_keymap_key_for_each -Wl,--export-dynamic-symbol=xkb_state_key_get_syms
// The second defines the guards in the executable itself, exported, as the viewer would: Debian's
// libSDL2 reaches xkbcommon through the process's global lookup, where the executable comes first.
#include <SDL.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int seconds = argc > 1 ? atoi(argv[1]) : 10;
    if (SDL_Init(SDL_INIT_VIDEO) != 0) { fprintf(stderr, "SDL_Init: %s\n", SDL_GetError()); return 1; }
    SDL_Window *w = SDL_CreateWindow("sdl-keys", 0, 0, 320, 240, SDL_WINDOW_RESIZABLE);
    SDL_Renderer *r = w ? SDL_CreateRenderer(w, -1, 0) : NULL;
    if (!r) { fprintf(stderr, "window: %s\n", SDL_GetError()); return 1; }
    printf("video %s\n", SDL_GetCurrentVideoDriver());
    fflush(stdout);
    Uint32 end = SDL_GetTicks() + (Uint32)seconds * 1000;
    while (!SDL_TICKS_PASSED(SDL_GetTicks(), end)) {
        SDL_Event e;
        while (SDL_WaitEventTimeout(&e, 50)) {
            if (e.type == SDL_KEYDOWN || e.type == SDL_KEYUP)
                printf("%s scancode %d sym %s\n", e.type == SDL_KEYDOWN ? "down" : "up",
                       e.key.keysym.scancode, SDL_GetKeyName(e.key.keysym.sym));
            else if (e.type == SDL_TEXTINPUT) printf("text %s\n", e.text.text);
            else if (e.type == SDL_KEYMAPCHANGED) printf("keymap changed\n");
            fflush(stdout);
        }
        SDL_SetRenderDrawColor(r, 40, 80, 120, 255);
        SDL_RenderClear(r);
        SDL_RenderPresent(r);
    }
    SDL_Quit();
    return 0;
}
