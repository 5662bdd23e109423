#if canImport(Glibc)
import Glibc
#endif
import CAVCodec
import Synchronization

/// One Open H.264 context (a rect's stream): libavcodec's H.264 parser, which cuts the rect's
/// data into access units exactly as FFmpeg cuts a stream, and its H.264 decoder, which
/// takes them one by one. Frames come out as soon as their access unit goes in (low delay,
/// slice threads only), and the newest is converted by libswscale to the framebuffer's
/// 0x00RRGGBB, as FFmpeg's own scale filter would. Used from the session thread only.
final class H264Context {
    /// Rects from this size on (a 640x400 window) decode on slice threads.
    static let threadedArea = 1 << 18
    /// Pictures libavcodec may hold at once beyond the references a stream declares: the one
    /// being decoded, the newest (kept until it is shown) and one on its way out. Its whole
    /// picture store is 36 (H264_MAX_PICTURE_COUNT); references and reordering are 16 each.
    static let picturesBeyondReferences = 3
    static let maxPicturesHeld = 36
    /// libavcodec's own memory per context, measured (mallinfo2) on FFmpeg 5.1 (see
    /// H264MemoryTests): the decoder's state, its tables and the parser, with no picture yet.
    static let contextBytes = 1 << 20
    /// Per picture beyond its pixels: motion vectors, reference indices, macroblock types and
    /// quantisers; with it the estimate covers what malloc says libavcodec holds (1.0-1.25x).
    static let sideBytesPerMacroblock = 256
    /// One sequence and one picture parameter set as FFmpeg 5.1 stores them (its SPS and PPS
    /// structs: a PPS carries its dequantisation tables, 170 KiB), kept by the decoder and by
    /// the parser alike.
    static let spsBytes = 2 * (8 << 10)
    static let ppsBytes = 2 * (176 << 10)
    /// Access units the parser may hand back without taking a byte in a row: it does so once
    /// after a flush (the next rect's first unit ends the flushed one), never twice.
    static let maxStalls = 2

    let rect: Rect
    /// For least-recently-used eviction.
    var lastUsed: UInt64 = 0
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    /// The parser's own codec context, never opened: the parser writes its guesses (size,
    /// profile) there, not into the decoder's.
    private var parserCodec: UnsafeMutablePointer<AVCodecContext>?
    private var parser: UnsafeMutablePointer<AVCodecParserContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var received: UnsafeMutablePointer<AVFrame>?
    /// The newest frame of the rect being decoded (only the last one is shown).
    private var latest: UnsafeMutablePointer<AVFrame>?
    /// A VA-API frame copied to memory.
    private var transferred: UnsafeMutablePointer<AVFrame>?
    private var sws: OpaquePointer?
    /// The parameter sets this context was sent, by id (memory).
    private var spsSeen = IDSet(), ppsSeen = IDSet()
    /// The largest access unit so far: the parser keeps a buffer that size.
    private var largestUnit = 0
    /// One picture's bytes (its planes), from the last frame decoded.
    private var pictureBytes = 0
    private var picturesHeld = 0

    /// `maxFramePixels` bounds what libavcodec allocates for a frame (its SPS is server data).
    /// `hwDevice`, when given, lets libavcodec decode on the GPU through VA-API.
    init(rect: Rect, maxFramePixels: Int, hwDevice: UnsafeMutablePointer<AVBufferRef>?) throws {
        // before any stored property: a throw after them would run deinit's FFmpeg calls
        try FFmpegLibraries.load(for: rect)
        self.rect = rect
        AVLog.install()
        guard let dec = cav_avcodec_find_decoder(AV_CODEC_ID_H264) else {
            throw ProtocolError("H.264 rect \(rect): this FFmpeg has no H.264 decoder")
        }
        codec = cav_avcodec_alloc_context3(dec)
        parserCodec = cav_avcodec_alloc_context3(nil)
        parser = cav_av_parser_init(Int32(AV_CODEC_ID_H264.rawValue))
        packet = cav_av_packet_alloc()
        received = cav_av_frame_alloc(); latest = cav_av_frame_alloc(); transferred = cav_av_frame_alloc()
        guard let c = codec, let pc = parserCodec, parser != nil, packet != nil, received != nil, latest != nil,
              transferred != nil else {
            throw ProtocolError("H.264 rect \(rect): out of memory for a decoder")
        }
        pc.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        pc.pointee.codec_id = AV_CODEC_ID_H264
        // No frame threads and no reordering delay: each rect shows its own frame at once.
        // Slice threads (as many as cores) only for large rects: 64 small contexts would
        // otherwise start a pool each.
        c.pointee.flags |= Int32(AV_CODEC_FLAG_LOW_DELAY)
        c.pointee.thread_type = Int32(FF_THREAD_SLICE)
        c.pointee.thread_count = rect.area >= H264Context.threadedArea ? 0 : 1
        c.pointee.max_pixels = Int64(maxFramePixels)
        if let hw = hwDevice, let ref = cav_av_buffer_ref(hw) {
            c.pointee.hw_device_ctx = ref
            c.pointee.get_format = preferVAAPI
        }
        let rc = cav_avcodec_open2(c, dec, nil)
        if rc < 0 { throw ProtocolError("H.264 rect \(rect): could not open the decoder (\(avError(rc)))") }
    }

    deinit {
        cav_av_parser_close(parser)
        cav_avcodec_free_context(&parserCodec)
        cav_avcodec_free_context(&codec)
        cav_av_packet_free(&packet)
        cav_av_frame_free(&received); cav_av_frame_free(&latest); cav_av_frame_free(&transferred)
        cav_sws_freeContext(sws)
    }

    /// Cuts `data[0..<count]` into access units with libavcodec's parser and decodes each;
    /// the parser is flushed at the end, so the rect's last picture comes out in this rect.
    /// `data` must be followed by AV_INPUT_BUFFER_PADDING_SIZE readable zero bytes (the parser
    /// reads ahead). `willDecode` runs before each access unit goes to the decoder (the
    /// caller's caps: it throws to stop). The newest frame replaces `latest`.
    func decode(_ data: UnsafePointer<UInt8>, count: Int, probe: LibraryProbe?, willDecode: () throws -> Void) throws {
        guard let c = parserCodec, let p = parser else { return }
        guard count <= Int(Int32.max) - Int(AV_INPUT_BUFFER_PADDING_SIZE) else {
            throw ProtocolError("H.264 rect \(rect): \(count) bytes are more than libavcodec takes at once")
        }
        try AnnexB.scan(data, count: count, rect: rect, sps: &spsSeen, pps: &ppsSeen)
        if let newest = latest { cav_av_frame_unref(newest) }
        var at = 0
        var stalls = 0
        var flushed = false
        while !flushed {
            // the data, then an empty call: the end of the stream, which flushes the last unit
            let left = count - at
            flushed = left == 0
            var unit: UnsafeMutablePointer<UInt8>?
            var size: Int32 = 0
            let used = cav_av_parser_parse2(p, c, &unit, &size, flushed ? nil : data + at, Int32(left),
                                        cav_nopts_value(), cav_nopts_value(), 0)
            at += max(0, Int(used))
            if let unit, size > 0 {
                stalls = 0
                try willDecode()
                try send(unit, count: Int(size), probe: probe)
            } else if used <= 0 && !flushed {
                stalls += 1
                if stalls > H264Context.maxStalls {
                    throw ProtocolError("H.264 rect \(rect): libavcodec's parser stopped at byte \(at) of \(count)")
                }
            }
        }
    }

    /// One access unit to the decoder; the newest frame it yields replaces `latest`.
    private func send(_ unit: UnsafeMutablePointer<UInt8>, count: Int, probe: LibraryProbe?) throws {
        guard let c = codec, let pkt = packet, let frame = received, let newest = latest else { return }
        largestUnit = max(largestUnit, count)
        // not reference-counted: libavcodec copies it into a padded buffer of its own
        pkt.pointee.data = unit
        pkt.pointee.size = Int32(count)
        defer { pkt.pointee.data = nil; pkt.pointee.size = 0 }
        AVLog.clear()
        let token = probe?.enter(.avcodec)
        defer { if let token { probe?.leave(.avcodec, token) } }
        var rc = cav_avcodec_send_packet(c, pkt)
        if rc < 0 {
            // parameter sets or SEI alone: libavcodec takes them, then says "no frame!"
            if rc == cav_error_invaliddata() && !AnnexB.hasSlice(unit, count: count) { return }
            throw rejected(rc)
        }
        while true {
            rc = cav_avcodec_receive_frame(c, frame)
            if rc == cav_error_eagain() || rc == cav_error_eof() { break }
            if rc < 0 { throw rejected(rc) }
            cav_av_frame_unref(newest)
            cav_av_frame_move_ref(newest, frame)
            notePicture(newest)
        }
    }

    private func rejected(_ rc: Int32) -> ProtocolError {
        if let newest = latest { cav_av_frame_unref(newest) }   // nothing of a rejected rect is shown
        let detail = AVLog.lastError()
        return ProtocolError("H.264 rect \(rect): the decoder rejected the data (\(avError(rc))\(detail.isEmpty ? "" : ": " + detail))")
    }

    /// What a picture of this stream costs, and how many the decoder may keep.
    private func notePicture(_ f: UnsafeMutablePointer<AVFrame>) {
        var bytes = 0
        withUnsafeBytes(of: &f.pointee.buf) { raw in
            for i in 0..<Int(AV_NUM_DATA_POINTERS) {
                let ref = raw.load(fromByteOffset: i * MemoryLayout<UnsafeMutablePointer<AVBufferRef>?>.stride,
                                   as: UnsafeMutablePointer<AVBufferRef>?.self)
                if let ref { bytes += Int(ref.pointee.size) }
            }
        }
        let w = Int(f.pointee.width), h = Int(f.pointee.height)
        let macroblocks = ((w + 15) / 16) * ((h + 15) / 16)
        // a VA-API frame's pixels are on the GPU; its transfer copy is here, 4:2:0
        if f.pointee.format == AV_PIX_FMT_VAAPI.rawValue { bytes = w * h * 3 / 2 }
        pictureBytes = bytes + macroblocks * H264Context.sideBytesPerMacroblock
        if let c = codec {
            let refs = Int(max(0, c.pointee.refs)) + Int(max(0, c.pointee.has_b_frames))
            picturesHeld = min(H264Context.maxPicturesHeld, refs + H264Context.picturesBeyondReferences)
        }
    }

    /// Bytes this context makes libavcodec hold, as far as they can be known from outside:
    /// its pictures (the picture store grows to the most held at once and stays), the
    /// parameter sets it was sent, the parser's buffer, the decoder's own state.
    var memoryBytes: Int {
        H264Context.contextBytes + picturesHeld * pictureBytes + spsSeen.count * H264Context.spsBytes
            + ppsSeen.count * H264Context.ppsBytes + largestUnit
    }

    /// For messages: what `memoryBytes` is made of.
    var memoryDescription: String {
        "\(picturesHeld) pictures of \(pictureBytes >> 10) KiB, \(spsSeen.count) SPS and \(ppsSeen.count) PPS"
    }

    /// Where `convertLatest` put a frame.
    enum Converted {
        /// In the scratch buffer, whole: its first pixel and row stride in pixels, for the
        /// caller to copy the rect from.
        case scratch(UnsafeMutablePointer<UInt32>, stride: Int)
        /// Straight into the rect in the framebuffer, under its lock.
        case framebuffer
    }

    /// Frames of at most this many pixels (1080p) may be converted straight into the
    /// framebuffer: about a millisecond of its lock (larger ones go through scratch, copied in
    /// bands that let the front end in).
    static let inPlacePixels = 1920 * 1088

    /// The newest decoded frame (if any) converted, then dropped: into the framebuffer when
    /// `convertsInPlace` allows, else into `scratch`. Nil when the data held no picture.
    func convertLatest(scratch: ScratchBuffer, fb: Framebuffer) throws -> Converted? {
        guard let newest = latest, newest.pointee.width > 0 else { return nil }
        defer { cav_av_frame_unref(newest) }
        var src = newest
        if newest.pointee.format == AV_PIX_FMT_VAAPI.rawValue, let sw = transferred {
            cav_av_frame_unref(sw)
            let rc = cav_av_hwframe_transfer_data(sw, newest, 0)
            if rc < 0 { throw ProtocolError("H.264 rect \(rect): could not copy the frame from the GPU (\(avError(rc)))") }
            cav_av_frame_copy_props(sw, newest)
            src = sw
        }
        defer { if src != newest { cav_av_frame_unref(src) } }
        let fw = Int(src.pointee.width), fh = Int(src.pointee.height)
        guard fw >= rect.w && fh >= rect.h else {
            throw ProtocolError("H.264 rect \(rect): the decoded frame is \(fw)x\(fh), smaller than the rect")
        }
        if convertsInPlace(AVPixelFormat(rawValue: src.pointee.format), width: fw, height: fh, fb: fb) {
            try convert(src, width: fw, height: fh,
                        into: UnsafeMutableRawPointer(fb.row(rect.y) + rect.x), pitch: fb.width * 4, lock: fb.lock)
            return .framebuffer
        }
        return try convert(src, width: fw, height: fh, scratch: scratch)
    }

    /// Converting straight into the framebuffer skips a pass that read the whole frame back
    /// from memory (swscale's stores are non-temporal): 18 % of a 1080p stream's decode. Only
    /// where nothing outside the rect can be written: a frame exactly the rect's size (no crop),
    /// 4:2:0 (swscale's yuv2rgb, which writes rows in groups of 8 pixels, and row pairs: whole
    /// 16-pixel groups and an even height here), rows 64-byte aligned as in scratch, and at most
    /// `inPlacePixels`.
    private func convertsInPlace(_ fmt: AVPixelFormat, width fw: Int, height fh: Int, fb: Framebuffer) -> Bool {
        guard fw == rect.w, fh == rect.h, rect.area <= H264Context.inPlacePixels, rect.w % 16 == 0, rect.h % 2 == 0,
              fmt == AV_PIX_FMT_YUV420P || fmt == AV_PIX_FMT_YUVJ420P,
              fb.contains(rect), (fb.width * 4) % 64 == 0 else { return false }
        return Int(bitPattern: fb.row(rect.y) + rect.x) % 64 == 0
    }

    /// The whole frame into `scratch`: converting the whole frame is what FFmpeg does before
    /// any crop, and a scratch buffer of our own keeps swscale's SIMD row ends (it writes whole
    /// groups of 8 pixels) out of the framebuffer.
    private func convert(_ f: UnsafeMutablePointer<AVFrame>, width fw: Int, height fh: Int,
                         scratch: ScratchBuffer) throws -> Converted {
        let stride = (fw + 15) & ~15    // pixels; room for whole SIMD groups
        scratch.reserve(stride * 4 * fh + 64)
        // 64-byte aligned rows for swscale's vector stores
        let base = UnsafeMutableRawPointer(scratch.pointer)
        let aligned = base + ((64 - Int(bitPattern: base) & 63) & 63)
        try convert(f, width: fw, height: fh, into: aligned, pitch: stride * 4, lock: nil)
        return .scratch(aligned.assumingMemoryBound(to: UInt32.self), stride: stride)
    }

    /// The whole frame into rows `pitch` bytes apart from `dst`, holding `lock` (if any) while
    /// swscale writes.
    private func convert(_ f: UnsafeMutablePointer<AVFrame>, width fw: Int, height fh: Int,
                         into dst0: UnsafeMutableRawPointer, pitch: Int, lock: FramebufferLock?) throws {
        let fmt = AVPixelFormat(rawValue: f.pointee.format)
        sws = cav_sws_getCachedContext(sws, Int32(fw), Int32(fh), fmt, Int32(fw), Int32(fh), AV_PIX_FMT_BGR0,
                                   SWS_BICUBIC, nil, nil, nil)
        guard let s = sws else {
            let name = cav_av_get_pix_fmt_name(fmt).map { String(cString: $0) } ?? "format \(fmt.rawValue)"
            throw ProtocolError("H.264 rect \(rect): cannot convert \(name) frames to RGB")
        }
        setColourspace(s, f)
        var dst: [UnsafeMutablePointer<UInt8>?] = [dst0.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var dstStride: [Int32] = [Int32(pitch), 0, 0, 0]
        let srcData: [UnsafePointer<UInt8>?] = withUnsafeBytes(of: &f.pointee.data) { raw in
            (0..<4).map { UnsafePointer(raw.load(fromByteOffset: $0 * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride,
                                                 as: UnsafeMutablePointer<UInt8>?.self)) }
        }
        let srcStride: [Int32] = withUnsafeBytes(of: &f.pointee.linesize) { raw in
            (0..<4).map { raw.load(fromByteOffset: $0 * 4, as: Int32.self) }
        }
        let rows = lock.map { $0.withWriterLock { cav_sws_scale(s, srcData, srcStride, 0, Int32(fh), &dst, &dstStride) } }
            ?? cav_sws_scale(s, srcData, srcStride, 0, Int32(fh), &dst, &dstStride)
        guard rows == Int32(fh) else {
            throw ProtocolError("H.264 rect \(rect): colour conversion of the \(fw)x\(fh) frame failed")
        }
    }

    /// The frame's signalled matrix and range, as FFmpeg's scale filter reads them; streams
    /// that say nothing (most) get BT.601 limited range.
    private func setColourspace(_ s: OpaquePointer, _ f: UnsafeMutablePointer<AVFrame>) {
        var cs = Int32(f.pointee.colorspace.rawValue)
        if cs < 1 || cs > 10 || cs == 8 { cs = Int32(AVCOL_SPC_BT470BG.rawValue) }
        let table = cav_sws_getCoefficients(cs)
        var inv: UnsafeMutablePointer<Int32>?, tab: UnsafeMutablePointer<Int32>?
        var srcFull: Int32 = 0, dstFull: Int32 = 0, bright: Int32 = 0, contrast: Int32 = 0, sat: Int32 = 0
        cav_sws_getColorspaceDetails(s, &inv, &srcFull, &tab, &dstFull, &bright, &contrast, &sat)
        switch f.pointee.color_range {
        case AVCOL_RANGE_JPEG: srcFull = 1
        case AVCOL_RANGE_MPEG: srcFull = 0
        default: break     // unspecified: swscale's own default for the format (full for yuvj*)
        }
        cav_sws_setColorspaceDetails(s, table, srcFull, table, dstFull, bright, contrast, sat)
    }
}

/// get_format: the VA-API surface format when offered, else libavcodec's own (software) choice.
/// libavcodec falls back by itself when the hardware cannot take the stream.
private func preferVAAPI(_ c: UnsafeMutablePointer<AVCodecContext>?,
                         _ fmts: UnsafePointer<AVPixelFormat>?) -> AVPixelFormat {
    guard let fmts else { return AV_PIX_FMT_NONE }
    var i = 0
    while fmts[i] != AV_PIX_FMT_NONE {
        if fmts[i] == AV_PIX_FMT_VAAPI { return AV_PIX_FMT_VAAPI }
        i += 1
    }
    return cav_avcodec_default_get_format(c, fmts)
}

/// The VA-API device all contexts of a connection share, or nil (no GPU, no driver): then
/// decoding is in software. Only the first render node is tried, so a machine without one
/// answers at once and libva prints nothing.
func makeVAAPIDevice() -> UnsafeMutablePointer<AVBufferRef>? {
    guard cav_load(nil, 0) == 0 else { return nil }
    AVLog.install()
    var ref: UnsafeMutablePointer<AVBufferRef>?
    guard cav_av_hwdevice_ctx_create(&ref, AV_HWDEVICE_TYPE_VAAPI, "/dev/dri/renderD128", nil, 0) >= 0 else { return nil }
    return ref
}

func avError(_ rc: Int32) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buf in
        guard let p = buf.baseAddress, cav_av_strerror(rc, p, 128) == 0 else { return "error \(rc)" }
        return String(cString: p)
    }
}

/// libavcodec's log: kept, never printed (a server's bad stream would otherwise flood stderr
/// with one line per broken macroblock). The last error line goes into the ProtocolError.
/// Process-wide, as FFmpeg's logging is; with several connections decoding at once a message
/// may come from another one, which only affects the detail shown.
enum AVLog {
    private static let last = Mutex<String>("")
    private static let installed = Mutex(false)

    static func install() {
        installed.withLock { done in
            if done { return }
            done = true
            cav_av_log_set_callback { _, level, fmt, args in
                guard level <= AV_LOG_ERROR, let fmt, let args else { return }
                let line = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buf -> String in
                    guard let p = buf.baseAddress else { return "" }
                    _ = vsnprintf(p, 256, fmt, args)
                    return String(cString: p)
                }
                let trimmed = line.trimmingSuffix()
                if !trimmed.isEmpty { AVLog.last.withLock { $0 = trimmed } }
            }
        }
    }

    static func clear() { last.withLock { $0 = "" } }
    static func lastError() -> String { last.withLock { $0 } }
}

private extension String {
    func trimmingSuffix() -> String {
        var s = Substring(self)
        while let c = s.last, c == "\n" || c == " " || c == "\r" { s = s.dropLast() }
        return String(s)
    }
}
