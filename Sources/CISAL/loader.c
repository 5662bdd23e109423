/* See cisal.h. The pointers have the types of ISA-L's own declarations (__typeof__), so a
 * wrong call does not compile. */
#include "cisal.h"

#include <stdio.h>

#if __has_include(<isa-l/igzip_lib.h>)
#include <isa-l.h>
#include <isa-l/igzip_lib.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#define STR_(x) #x
#define STR(x) STR_(x)
/* the soname of the headers built against: another major version is another ABI */
static const char soname[] = "libisal.so." STR(ISAL_MAJOR_VERSION);

#define FUNCTIONS(X) X(isal_inflate_init) X(isal_inflate_reset) X(isal_inflate)
#define POINTER(name) static __typeof__(name) *p_##name;
FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;   /* -1 not tried, 0 loaded, 1 failed */
static char failure[256];

static void load(void) {
    /* RTLD_LOCAL: nothing else in the process sees ISA-L's symbols */
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *e = dlerror();
        snprintf(failure, sizeof failure, "%s", e ? e : soname);
        __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
        return;
    }
#define RESOLVE(name) \
    if (!(p_##name = (__typeof__(name) *)dlsym(handle, #name))) { \
        snprintf(failure, sizeof failure, "%s has no %s", soname, #name); \
        __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE); \
        return; \
    }
    FUNCTIONS(RESOLVE)
    /* the handle stays open for the process's life: streams may outlive any one session */
    __atomic_store_n(&loaded, 0, __ATOMIC_RELEASE);
}

int cisal_load(char *why, size_t why_size) {
#if defined(__aarch64__) && ISAL_VERSION < ISAL_MAKE_VERSION(2, 32, 0)
    /* ISA-L's aarch64 decoder gave wrong output before 2.32.0 (intel/isa-l issue 316) */
    if (why && why_size)
        snprintf(why, why_size, "ISA-L %d.%d's aarch64 inflate gives wrong output on some streams (fixed in 2.32.0)",
                 ISAL_MAJOR_VERSION, ISAL_MINOR_VERSION);
    return -1;
#endif
    pthread_once(&once, load);
    if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE) == 0) return 0;
    if (why && why_size) snprintf(why, why_size, "%s", failure);
    return -1;
}

struct cisal_stream {
    struct inflate_state state;
    /* ISA-L's state after an error is not defined: refuse until reset */
    const char *broken;
};

static void start(cisal_stream *s) {
    p_isal_inflate_init(&s->state);
    s->state.crc_flag = ISAL_DEFLATE;   /* raw deflate; the caller reads the zlib wrapper */
    s->state.hist_bits = 0;             /* the full 32 KiB window */
    s->broken = NULL;
}

cisal_stream *cisal_new(void) {
    if (cisal_load(NULL, 0) != 0) return NULL;
    cisal_stream *s = malloc(sizeof *s);
    if (s) start(s);
    return s;
}

void cisal_free(cisal_stream *s) { free(s); }

void cisal_reset(cisal_stream *s) { start(s); }

static const char *describe(int rc) {
    switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid block";
    case ISAL_INVALID_SYMBOL: return "invalid code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_NEED_DICT: return "needs a dictionary";
    default: return "ISA-L inflate failed";
    }
}

int cisal_inflate(cisal_stream *s, const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t out_len,
                  uint32_t *consumed, uint32_t *produced, uint32_t *past_end, const char **what) {
    *consumed = 0; *produced = 0; *past_end = 0; *what = NULL;
    if (s->broken) { *what = s->broken; return CISAL_CORRUPT; }
    struct inflate_state *st = &s->state;
    if (st->block_state == ISAL_BLOCK_FINISH) return CISAL_END;
    st->next_in = (uint8_t *)in;
    st->avail_in = in_len;
    st->next_out = out;
    st->avail_out = out_len;
    int rc = p_isal_inflate(st);
    *consumed = in_len - st->avail_in;
    *produced = out_len - st->avail_out;
    st->next_in = NULL; st->next_out = NULL;
    if (rc < 0 || rc == ISAL_NEED_DICT) {
        s->broken = describe(rc);
        *what = s->broken;
        return CISAL_CORRUPT;
    }
    if (st->block_state == ISAL_BLOCK_FINISH) {
        /* whole bytes still in the bit buffer are past the stream's end (2.30 does not hand
         * them back itself): those of this call's input are not taken; those of an earlier
         * call's (the end came in a call after the one that read it) are counted in *past_end */
        uint32_t unread = (uint32_t)(st->read_in_length > 0 ? st->read_in_length / 8 : 0);
        uint32_t back = unread < *consumed ? unread : *consumed;
        *consumed -= back;
        *past_end = unread - back;
        st->read_in_length = 0;
        return CISAL_END;
    }
    return CISAL_PROGRESS;
}

int cisal_at_flush_point(const cisal_stream *s) {
    const struct inflate_state *st = &s->state;
    if (s->broken) return 0;
    if (st->block_state == ISAL_BLOCK_FINISH) return 1;
    /* after a sync or full flush's empty stored block ISA-L has begun the next header
     * (ISAL_BLOCK_HDR) with no byte of it */
    return (st->block_state == ISAL_BLOCK_NEW_HDR || st->block_state == ISAL_BLOCK_HDR)
        && st->read_in_length == 0 && st->tmp_in_size == 0
        && st->tmp_out_valid == st->tmp_out_processed && st->write_overflow_len == 0 && st->copy_overflow_length == 0;
}

#else  /* no ISA-L headers at build time (an architecture Debian does not build it for) */

int cisal_load(char *why, size_t why_size) {
    if (why && why_size) snprintf(why, why_size, "this build has no ISA-L (libisal-dev was not installed)");
    return -1;
}
cisal_stream *cisal_new(void) { return NULL; }
void cisal_free(cisal_stream *s) { (void)s; }
void cisal_reset(cisal_stream *s) { (void)s; }
int cisal_inflate(cisal_stream *s, const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t out_len,
                  uint32_t *consumed, uint32_t *produced, uint32_t *past_end, const char **what) {
    (void)s; (void)in; (void)in_len; (void)out; (void)out_len;
    *consumed = 0; *produced = 0; *past_end = 0; *what = "this build has no ISA-L";
    return CISAL_CORRUPT;
}
int cisal_at_flush_point(const cisal_stream *s) { (void)s; return 0; }

#endif
