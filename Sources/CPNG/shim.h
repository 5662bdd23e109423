#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

// libpng reports an error by longjmp, which must never cross a Swift frame: one PNG's whole read
// happens in cpng_decode_bgrx, in C, and comes back as a status and a message.

enum { CPNG_OK = 0, CPNG_FAILED = 1, CPNG_WRONG_SIZE = 2 };

typedef struct {
    const unsigned char *data;
    size_t size, at;
    char *message;           // the caller's: nothing this function keeps is read after a longjmp
    size_t message_size;
} cpng_source;

static inline void cpng_read_data(png_structp png, png_bytep out, size_t n) {
    cpng_source *s = (cpng_source *)png_get_io_ptr(png);
    if (n > s->size - s->at) png_error(png, "the PNG data ends early");
    memcpy(out, s->data + s->at, n);
    s->at += n;
}

static inline void cpng_error(png_structp png, png_const_charp msg) {
    cpng_source *s = (cpng_source *)png_get_error_ptr(png);
    snprintf(s->message, s->message_size, "%s", msg);
    png_longjmp(png, 1);
}

static inline void cpng_warning(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

// A whole PNG of exactly width x height into rows of B,G,R,0 bytes `stride` bytes apart: the
// samples as stored (16-bit ones scaled to 8, rounded; palette and grey expanded), alpha dropped,
// every ancillary chunk (gamma, chromaticities, sRGB, ICC profile, transparency, text) skipped
// unread, so no gamma or colour conversion happens. CPNG_WRONG_SIZE: *image_w, *image_h hold the
// PNG's size and nothing was written. CPNG_FAILED: libpng's message in `message`.
static inline int cpng_decode_bgrx(const unsigned char *data, size_t size, unsigned width, unsigned height,
                                   unsigned char *dst, size_t stride, size_t max_chunk,
                                   unsigned *image_w, unsigned *image_h, char *message, size_t message_size) {
    cpng_source src = { data, size, 0, message, message_size };
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, cpng_error, cpng_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        if (png) png_destroy_read_struct(&png, NULL, NULL);
        snprintf(message, message_size, "out of memory");
        return CPNG_FAILED;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return CPNG_FAILED;
    }
    png_set_read_fn(png, &src, cpng_read_data);
    png_set_chunk_malloc_max(png, max_chunk);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);   // all but the critical ones and tRNS
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, (png_const_bytep)"tRNS", 1);
    png_read_info(png, info);
    png_uint_32 w = 0, h = 0;
    int depth = 0, colour = 0;
    png_get_IHDR(png, info, &w, &h, &depth, &colour, NULL, NULL, NULL);
    if (w != width || h != height) {
        *image_w = w; *image_h = h;
        png_destroy_read_struct(&png, &info, NULL);
        return CPNG_WRONG_SIZE;
    }
    if (colour == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (colour == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (depth == 16) png_set_scale_16(png);
    if (!(colour & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(png);
    if (colour & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(png);
    png_set_bgr(png);
    png_set_filler(png, 0, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4) png_error(png, "rows are not 4 bytes a pixel after conversion");
    for (int p = 0; p < passes; p++)
        for (unsigned y = 0; y < height; y++) png_read_row(png, dst + y * stride, NULL);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    return CPNG_OK;
}
