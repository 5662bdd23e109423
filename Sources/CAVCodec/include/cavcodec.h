/* FFmpeg (libavcodec, libavutil, libswscale) loaded on first need: the viewer does not link
 * them, so a session without H.264 never maps them (libavcodec and the 63 libraries only it
 * needs were 12 MB of the viewer's resident memory and most of its 148 mapped libraries).
 * cav_load() opens the three by the sonames these headers are from; the cav_ functions are
 * FFmpeg's own, called through what dlsym found, and valid only after cav_load() succeeded
 * (the freeing ones do nothing before). */
#ifndef FARCAST_CAVCODEC_H
#define FARCAST_CAVCODEC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <libavcodec/avcodec.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

/* 0 once the libraries and every function are there (loaded once per process, thread-safe);
 * otherwise -1, with what failed (a library or a symbol, dlerror's words) in `why`. */
int cav_load(char *why, size_t why_size);
/* 1 when a load was tried and failed: H.264 is then not offered. */
int cav_load_failed(void);

/* libavutil */
AVFrame *cav_av_frame_alloc(void);
void cav_av_frame_free(AVFrame **frame);
void cav_av_frame_unref(AVFrame *frame);
void cav_av_frame_move_ref(AVFrame *dst, AVFrame *src);
int cav_av_frame_copy_props(AVFrame *dst, const AVFrame *src);
int cav_av_strerror(int errnum, char *errbuf, size_t errbuf_size);
int cav_av_hwframe_transfer_data(AVFrame *dst, const AVFrame *src, int flags);
int cav_av_hwdevice_ctx_create(AVBufferRef **device_ctx, enum AVHWDeviceType type, const char *device,
                               AVDictionary *opts, int flags);
const char *cav_av_get_pix_fmt_name(enum AVPixelFormat pix_fmt);
AVBufferRef *cav_av_buffer_ref(const AVBufferRef *buf);
void cav_av_buffer_unref(AVBufferRef **buf);
void cav_av_log_set_callback(void (*callback)(void *, int, const char *, va_list));

/* libavcodec */
const AVCodec *cav_avcodec_find_decoder(enum AVCodecID id);
AVCodecContext *cav_avcodec_alloc_context3(const AVCodec *codec);
void cav_avcodec_free_context(AVCodecContext **avctx);
int cav_avcodec_open2(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options);
int cav_avcodec_send_packet(AVCodecContext *avctx, const AVPacket *avpkt);
int cav_avcodec_receive_frame(AVCodecContext *avctx, AVFrame *frame);
enum AVPixelFormat cav_avcodec_default_get_format(AVCodecContext *s, const enum AVPixelFormat *fmt);
AVCodecParserContext *cav_av_parser_init(int codec_id);
int cav_av_parser_parse2(AVCodecParserContext *s, AVCodecContext *avctx, uint8_t **poutbuf, int *poutbuf_size,
                         const uint8_t *buf, int buf_size, int64_t pts, int64_t dts, int64_t pos);
void cav_av_parser_close(AVCodecParserContext *s);
AVPacket *cav_av_packet_alloc(void);
void cav_av_packet_free(AVPacket **pkt);

/* libswscale */
struct SwsContext *cav_sws_getCachedContext(struct SwsContext *context, int srcW, int srcH, enum AVPixelFormat srcFormat,
                                            int dstW, int dstH, enum AVPixelFormat dstFormat, int flags,
                                            SwsFilter *srcFilter, SwsFilter *dstFilter, const double *param);
int cav_sws_scale(struct SwsContext *c, const uint8_t *const srcSlice[], const int srcStride[], int srcSliceY,
                  int srcSliceH, uint8_t *const dst[], const int dstStride[]);
void cav_sws_freeContext(struct SwsContext *c);
const int *cav_sws_getCoefficients(int colorspace);
int cav_sws_getColorspaceDetails(struct SwsContext *c, int **inv_table, int *srcRange, int **table, int *dstRange,
                                 int *brightness, int *contrast, int *saturation);
int cav_sws_setColorspaceDetails(struct SwsContext *c, const int inv_table[4], int srcRange, const int table[4],
                                 int dstRange, int brightness, int contrast, int saturation);

/* Function-like macros Swift cannot import. */
static inline int cav_error_eagain(void) { return AVERROR(EAGAIN); }
static inline int cav_error_eof(void) { return AVERROR_EOF; }
static inline int cav_error_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int64_t cav_nopts_value(void) { return AV_NOPTS_VALUE; }

#endif
