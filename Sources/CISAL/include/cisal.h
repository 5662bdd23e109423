/* ISA-L's inflate (libisal2, igzip), loaded on first use: the viewer does not link it, so it
 * runs where the library is not installed or not built (zlib then inflates everything).
 * Raw deflate only: the caller reads zlib's header and trailer itself, as it does for zlib. */
#ifndef FARCAST_CISAL_H
#define FARCAST_CISAL_H

#include <stddef.h>
#include <stdint.h>

/* 0 once libisal.so.2 and its inflate calls are there (loaded once per process, thread-safe);
 * otherwise -1 with why (dlerror's words, or that this build has no ISA-L headers). */
int cisal_load(char *why, size_t why_size);

typedef struct cisal_stream cisal_stream;

/* A raw deflate stream with the full 32 KiB window, or NULL (not loaded, out of memory). */
cisal_stream *cisal_new(void);
void cisal_free(cisal_stream *s);
/* Back to the start of a new stream. */
void cisal_reset(cisal_stream *s);

enum {
    CISAL_PROGRESS = 0,  /* input used up or output full; call again with more of either */
    CISAL_END = 1,       /* the final block is done; `consumed` stops right after it, but for
                            `past_end` bytes after it taken by an earlier call */
    CISAL_CORRUPT = -1,  /* not deflate: `what` says why; the stream stays broken until reset */
};

/* Inflates from in[0..<in_len] into out[0..<out_len]; says how much of each it used. What it
 * takes of the input is decoded or kept in the stream, never needed again by the caller. */
int cisal_inflate(cisal_stream *s, const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t out_len,
                  uint32_t *consumed, uint32_t *produced, uint32_t *past_end, const char **what);

/* 1 when everything taken has been decoded and given out, at a block boundary (fewer than 8
 * bits left over): where a
 * server's flush (sync, partial or full) leaves the stream. Elsewhere (a message cut short)
 * ISA-L keeps the bits of the last symbol or two until more input comes, where zlib may
 * already have decoded them. */
int cisal_at_flush_point(const cisal_stream *s);

#endif
