#include <SDL2/SDL.h>
// Raw window-system events: on X11 the key's X keycode (SDL2 remaps letter scancodes by keysym).
#include <SDL2/SDL_syswm.h>
