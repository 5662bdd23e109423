#include <libavcodec/avcodec.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

// Function-like macros Swift cannot import.
static inline int cav_error_eagain(void) { return AVERROR(EAGAIN); }
static inline int cav_error_eof(void) { return AVERROR_EOF; }
static inline int cav_error_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int64_t cav_nopts_value(void) { return AV_NOPTS_VALUE; }
