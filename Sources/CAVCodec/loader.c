/* See cavcodec.h. Each pointer has the type of FFmpeg's own declaration (__typeof__), so a
 * wrapper that passed the wrong arguments would not compile. The freeing calls do nothing when
 * the load failed (they are what deinits run on nothing), the others need cav_load() first. */
#include "cavcodec.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

enum { AVUTIL, AVCODEC, SWSCALE, LIBRARIES };
/* the sonames of the headers built against: another major version is another ABI */
static const char *const sonames[LIBRARIES] = {
    "libavutil.so." STR(LIBAVUTIL_VERSION_MAJOR),
    "libavcodec.so." STR(LIBAVCODEC_VERSION_MAJOR),
    "libswscale.so." STR(LIBSWSCALE_VERSION_MAJOR),
};

#define FUNCTIONS(X) \
    X(AVUTIL, av_frame_alloc) X(AVUTIL, av_frame_free) X(AVUTIL, av_frame_unref) \
    X(AVUTIL, av_frame_move_ref) X(AVUTIL, av_frame_copy_props) X(AVUTIL, av_strerror) \
    X(AVUTIL, av_hwframe_transfer_data) X(AVUTIL, av_hwdevice_ctx_create) X(AVUTIL, av_get_pix_fmt_name) \
    X(AVUTIL, av_buffer_ref) X(AVUTIL, av_buffer_unref) X(AVUTIL, av_log_set_callback) \
    X(AVCODEC, avcodec_find_decoder) X(AVCODEC, avcodec_alloc_context3) X(AVCODEC, avcodec_free_context) \
    X(AVCODEC, avcodec_open2) X(AVCODEC, avcodec_send_packet) X(AVCODEC, avcodec_receive_frame) \
    X(AVCODEC, avcodec_default_get_format) X(AVCODEC, av_parser_init) X(AVCODEC, av_parser_parse2) \
    X(AVCODEC, av_parser_close) X(AVCODEC, av_packet_alloc) X(AVCODEC, av_packet_free) \
    X(SWSCALE, sws_getCachedContext) X(SWSCALE, sws_scale) X(SWSCALE, sws_freeContext) \
    X(SWSCALE, sws_getCoefficients) X(SWSCALE, sws_getColorspaceDetails) X(SWSCALE, sws_setColorspaceDetails)

#define POINTER(lib, name) static __typeof__(name) *p_##name;
FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;   /* -1 not tried, 0 loaded, 1 failed */
static char failure[256];

static void load(void) {
    void *handles[LIBRARIES] = { 0 };
    /* in dependency order; RTLD_LOCAL: nothing else in the process sees FFmpeg's symbols */
    for (int i = 0; i < LIBRARIES; i++) {
        handles[i] = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            const char *e = dlerror();
            snprintf(failure, sizeof failure, "%s", e ? e : sonames[i]);
            __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
            return;
        }
    }
#define RESOLVE(lib, name) \
    if (!(p_##name = (__typeof__(name) *)dlsym(handles[lib], #name))) { \
        snprintf(failure, sizeof failure, "%s has no %s", sonames[lib], #name); \
        __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE); \
        return; \
    }
    FUNCTIONS(RESOLVE)
    /* the handles stay open for the process's life: contexts may outlive any one session */
    __atomic_store_n(&loaded, 0, __ATOMIC_RELEASE);
}

int cav_load(char *why, size_t why_size) {
    pthread_once(&once, load);
    if (loaded == 0) return 0;
    if (why && why_size) snprintf(why, why_size, "%s", failure);
    return -1;
}

int cav_load_failed(void) {
    /* read without loading: only after the once has run is `loaded` set */
    return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE) == 1;
}

AVFrame *cav_av_frame_alloc(void) { return p_av_frame_alloc(); }
void cav_av_frame_free(AVFrame **frame) { if (p_av_frame_free) p_av_frame_free(frame); }
void cav_av_frame_unref(AVFrame *frame) { if (p_av_frame_unref) p_av_frame_unref(frame); }
void cav_av_frame_move_ref(AVFrame *dst, AVFrame *src) { p_av_frame_move_ref(dst, src); }
int cav_av_frame_copy_props(AVFrame *dst, const AVFrame *src) { return p_av_frame_copy_props(dst, src); }
int cav_av_strerror(int errnum, char *errbuf, size_t errbuf_size) { return p_av_strerror(errnum, errbuf, errbuf_size); }
int cav_av_hwframe_transfer_data(AVFrame *dst, const AVFrame *src, int flags) {
    return p_av_hwframe_transfer_data(dst, src, flags);
}
int cav_av_hwdevice_ctx_create(AVBufferRef **device_ctx, enum AVHWDeviceType type, const char *device,
                               AVDictionary *opts, int flags) {
    return p_av_hwdevice_ctx_create(device_ctx, type, device, opts, flags);
}
const char *cav_av_get_pix_fmt_name(enum AVPixelFormat pix_fmt) { return p_av_get_pix_fmt_name(pix_fmt); }
AVBufferRef *cav_av_buffer_ref(const AVBufferRef *buf) { return p_av_buffer_ref(buf); }
void cav_av_buffer_unref(AVBufferRef **buf) { if (p_av_buffer_unref) p_av_buffer_unref(buf); }
void cav_av_log_set_callback(void (*callback)(void *, int, const char *, va_list)) { p_av_log_set_callback(callback); }

const AVCodec *cav_avcodec_find_decoder(enum AVCodecID id) { return p_avcodec_find_decoder(id); }
AVCodecContext *cav_avcodec_alloc_context3(const AVCodec *codec) { return p_avcodec_alloc_context3(codec); }
void cav_avcodec_free_context(AVCodecContext **avctx) { if (p_avcodec_free_context) p_avcodec_free_context(avctx); }
int cav_avcodec_open2(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options) {
    return p_avcodec_open2(avctx, codec, options);
}
int cav_avcodec_send_packet(AVCodecContext *avctx, const AVPacket *avpkt) { return p_avcodec_send_packet(avctx, avpkt); }
int cav_avcodec_receive_frame(AVCodecContext *avctx, AVFrame *frame) { return p_avcodec_receive_frame(avctx, frame); }
enum AVPixelFormat cav_avcodec_default_get_format(AVCodecContext *s, const enum AVPixelFormat *fmt) {
    return p_avcodec_default_get_format(s, fmt);
}
AVCodecParserContext *cav_av_parser_init(int codec_id) { return p_av_parser_init(codec_id); }
int cav_av_parser_parse2(AVCodecParserContext *s, AVCodecContext *avctx, uint8_t **poutbuf, int *poutbuf_size,
                         const uint8_t *buf, int buf_size, int64_t pts, int64_t dts, int64_t pos) {
    return p_av_parser_parse2(s, avctx, poutbuf, poutbuf_size, buf, buf_size, pts, dts, pos);
}
void cav_av_parser_close(AVCodecParserContext *s) { if (p_av_parser_close) p_av_parser_close(s); }
AVPacket *cav_av_packet_alloc(void) { return p_av_packet_alloc(); }
void cav_av_packet_free(AVPacket **pkt) { if (p_av_packet_free) p_av_packet_free(pkt); }

struct SwsContext *cav_sws_getCachedContext(struct SwsContext *context, int srcW, int srcH, enum AVPixelFormat srcFormat,
                                            int dstW, int dstH, enum AVPixelFormat dstFormat, int flags,
                                            SwsFilter *srcFilter, SwsFilter *dstFilter, const double *param) {
    return p_sws_getCachedContext(context, srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param);
}
int cav_sws_scale(struct SwsContext *c, const uint8_t *const srcSlice[], const int srcStride[], int srcSliceY,
                  int srcSliceH, uint8_t *const dst[], const int dstStride[]) {
    return p_sws_scale(c, srcSlice, srcStride, srcSliceY, srcSliceH, dst, dstStride);
}
void cav_sws_freeContext(struct SwsContext *c) { if (p_sws_freeContext) p_sws_freeContext(c); }
const int *cav_sws_getCoefficients(int colorspace) { return p_sws_getCoefficients(colorspace); }
int cav_sws_getColorspaceDetails(struct SwsContext *c, int **inv_table, int *srcRange, int **table, int *dstRange,
                                 int *brightness, int *contrast, int *saturation) {
    return p_sws_getColorspaceDetails(c, inv_table, srcRange, table, dstRange, brightness, contrast, saturation);
}
int cav_sws_setColorspaceDetails(struct SwsContext *c, const int inv_table[4], int srcRange, const int table[4],
                                 int dstRange, int brightness, int contrast, int saturation) {
    return p_sws_setColorspaceDetails(c, inv_table, srcRange, table, dstRange, brightness, contrast, saturation);
}
