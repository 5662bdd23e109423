#if canImport(Glibc)
import Glibc
#endif
import CAVCodec
import Synchronization

/// One libavcodec H.264 decoder: Open H.264 keeps one per rect. Frames come out as soon as
/// their access unit goes in (low delay, slice threads only), and the newest is converted
/// by libswscale to the framebuffer's 0x00RRGGBB, as FFmpeg's own scale filter would.
final class H264Context {
    /// Rects from this size on (a 640x400 window) decode on slice threads.
    static let threadedArea = 1 << 18
    let rect: Rect
    /// For least-recently-used eviction.
    var lastUsed: UInt64 = 0
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var received: UnsafeMutablePointer<AVFrame>?
    /// The newest frame of the rect being decoded (only the last one is shown).
    private var latest: UnsafeMutablePointer<AVFrame>?
    /// A VA-API frame copied to memory.
    private var transferred: UnsafeMutablePointer<AVFrame>?
    private var sws: OpaquePointer?
    /// Parameter sets or SEI that came without a slice: libavcodec takes them only together
    /// with a picture ("no frame!" otherwise), so they wait for the next one. At most one
    /// rect's data (the length limit).
    private var waiting: [UInt8] = []

    /// `maxFramePixels` bounds what libavcodec allocates for a frame (its SPS is server data).
    /// `hwDevice`, when given, lets libavcodec decode on the GPU through VA-API.
    init(rect: Rect, maxFramePixels: Int, hwDevice: UnsafeMutablePointer<AVBufferRef>?) throws {
        self.rect = rect
        AVLog.install()
        guard let dec = avcodec_find_decoder(AV_CODEC_ID_H264) else {
            throw ProtocolError("H.264 rect \(rect): this FFmpeg has no H.264 decoder")
        }
        codec = avcodec_alloc_context3(dec)
        packet = av_packet_alloc()
        received = av_frame_alloc(); latest = av_frame_alloc(); transferred = av_frame_alloc()
        guard let c = codec, packet != nil, received != nil, latest != nil, transferred != nil else {
            throw ProtocolError("H.264 rect \(rect): out of memory for a decoder")
        }
        // No frame threads and no reordering delay: each rect shows its own frame at once.
        // Slice threads (as many as cores) only for large rects: 64 small contexts would
        // otherwise start a pool each.
        c.pointee.flags |= Int32(AV_CODEC_FLAG_LOW_DELAY)
        c.pointee.thread_type = Int32(FF_THREAD_SLICE)
        c.pointee.thread_count = rect.area >= H264Context.threadedArea ? 0 : 1
        c.pointee.max_pixels = Int64(maxFramePixels)
        if let hw = hwDevice, let ref = av_buffer_ref(hw) {
            c.pointee.hw_device_ctx = ref
            c.pointee.get_format = preferVAAPI
        }
        let rc = avcodec_open2(c, dec, nil)
        if rc < 0 { throw ProtocolError("H.264 rect \(rect): could not open the decoder (\(avError(rc)))") }
    }

    deinit {
        avcodec_free_context(&codec)
        av_packet_free(&packet)
        av_frame_free(&received); av_frame_free(&latest); av_frame_free(&transferred)
        sws_freeContext(sws)
    }

    /// Decodes one access unit; the newest frame it yields replaces `latest`.
    func decode(_ unit: UnsafePointer<UInt8>, count: Int, hasSlice: Bool, probe: LibraryProbe?) throws {
        guard let c = codec, let pkt = packet, let frame = received, let newest = latest else { return }
        if !hasSlice {
            if waiting.count + count > H264Decoder.maxLength(rect) { waiting.removeAll() }
            waiting.append(contentsOf: UnsafeBufferPointer(start: unit, count: count))
            return
        }
        // a reference-counted, zero-padded copy: libavcodec keeps it without copying again
        let total = waiting.count + count
        if total > Int(Int32.max) || av_new_packet(pkt, Int32(total)) < 0 {
            throw ProtocolError("H.264 rect \(rect): cannot make a packet of \(total) bytes")
        }
        defer { av_packet_unref(pkt) }
        waiting.withUnsafeBufferPointer { w in
            if let b = w.baseAddress { pkt.pointee.data.update(from: b, count: w.count) }
        }
        (pkt.pointee.data + waiting.count).update(from: unit, count: count)
        waiting.removeAll(keepingCapacity: true)
        AVLog.clear()
        let token = probe?.enter(.avcodec)
        defer { if let token { probe?.leave(.avcodec, token) } }
        var rc = avcodec_send_packet(c, pkt)
        if rc < 0 { throw rejected(rc) }
        while true {
            rc = avcodec_receive_frame(c, frame)
            if rc == cav_error_eagain() || rc == cav_error_eof() { return }
            if rc < 0 { throw rejected(rc) }
            av_frame_unref(newest)
            av_frame_move_ref(newest, frame)
        }
    }

    private func rejected(_ rc: Int32) -> ProtocolError {
        if let newest = latest { av_frame_unref(newest) }   // nothing of a rejected rect is shown
        let detail = AVLog.lastError()
        return ProtocolError("H.264 rect \(rect): the decoder rejected the data (\(avError(rc))\(detail.isEmpty ? "" : ": " + detail))")
    }

    /// Draws the newest decoded frame (if any) into the rect, cropped to it, then drops it.
    /// Returns false when the data held no picture.
    func drawLatest(into fb: Framebuffer, scratch: ScratchBuffer) throws -> Bool {
        guard let newest = latest, newest.pointee.width > 0 else { return false }
        defer { av_frame_unref(newest) }
        var src = newest
        if newest.pointee.format == AV_PIX_FMT_VAAPI.rawValue, let sw = transferred {
            av_frame_unref(sw)
            let rc = av_hwframe_transfer_data(sw, newest, 0)
            if rc < 0 { throw ProtocolError("H.264 rect \(rect): could not copy the frame from the GPU (\(avError(rc)))") }
            av_frame_copy_props(sw, newest)
            src = sw
        }
        defer { if src != newest { av_frame_unref(src) } }
        let fw = Int(src.pointee.width), fh = Int(src.pointee.height)
        guard fw >= rect.w && fh >= rect.h else {
            throw ProtocolError("H.264 rect \(rect): the decoded frame is \(fw)x\(fh), smaller than the rect")
        }
        try convert(src, width: fw, height: fh, fb: fb, scratch: scratch)
        return true
    }

    /// The whole frame into `scratch`, then the rect's part into the framebuffer. Converting
    /// the whole frame is what FFmpeg does before any crop; a scratch buffer of our own keeps
    /// swscale's SIMD row ends (it writes whole groups of 8 pixels) out of the neighbours.
    private func convert(_ f: UnsafeMutablePointer<AVFrame>, width fw: Int, height fh: Int,
                         fb: Framebuffer, scratch: ScratchBuffer) throws {
        let fmt = AVPixelFormat(rawValue: f.pointee.format)
        sws = sws_getCachedContext(sws, Int32(fw), Int32(fh), fmt, Int32(fw), Int32(fh), AV_PIX_FMT_BGR0,
                                   SWS_BICUBIC, nil, nil, nil)
        guard let s = sws else {
            let name = av_get_pix_fmt_name(fmt).map { String(cString: $0) } ?? "format \(fmt.rawValue)"
            throw ProtocolError("H.264 rect \(rect): cannot convert \(name) frames to RGB")
        }
        setColourspace(s, f)
        let stride = (fw + 15) & ~15    // pixels; room for whole SIMD groups
        scratch.reserve(stride * 4 * fh + 64)
        // 64-byte aligned rows for swscale's vector stores
        let base = UnsafeMutableRawPointer(scratch.pointer)
        let aligned = base + ((64 - Int(bitPattern: base) & 63) & 63)
        var dst: [UnsafeMutablePointer<UInt8>?] = [aligned.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var dstStride: [Int32] = [Int32(stride * 4), 0, 0, 0]
        let srcData: [UnsafePointer<UInt8>?] = withUnsafeBytes(of: &f.pointee.data) { raw in
            (0..<4).map { UnsafePointer(raw.load(fromByteOffset: $0 * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride,
                                                 as: UnsafeMutablePointer<UInt8>?.self)) }
        }
        let srcStride: [Int32] = withUnsafeBytes(of: &f.pointee.linesize) { raw in
            (0..<4).map { raw.load(fromByteOffset: $0 * 4, as: Int32.self) }
        }
        let rows = sws_scale(s, srcData, srcStride, 0, Int32(fh), &dst, &dstStride)
        guard rows == Int32(fh) else {
            throw ProtocolError("H.264 rect \(rect): colour conversion of the \(fw)x\(fh) frame failed")
        }
        // crop to the rect; the framebuffer's pixels keep their top byte zero
        let px = aligned.assumingMemoryBound(to: UInt32.self)
        for y in 0..<rect.h {
            let s = px + y * stride
            let d = fb.row(rect.y + y) + rect.x
            for x in 0..<rect.w { d[x] = s[x] & 0x00ff_ffff }
        }
    }

    /// The frame's signalled matrix and range, as FFmpeg's scale filter reads them; streams
    /// that say nothing (most) get BT.601 limited range.
    private func setColourspace(_ s: OpaquePointer, _ f: UnsafeMutablePointer<AVFrame>) {
        var cs = Int32(f.pointee.colorspace.rawValue)
        if cs < 1 || cs > 10 || cs == 8 { cs = Int32(AVCOL_SPC_BT470BG.rawValue) }
        let table = sws_getCoefficients(cs)
        var inv: UnsafeMutablePointer<Int32>?, tab: UnsafeMutablePointer<Int32>?
        var srcFull: Int32 = 0, dstFull: Int32 = 0, bright: Int32 = 0, contrast: Int32 = 0, sat: Int32 = 0
        sws_getColorspaceDetails(s, &inv, &srcFull, &tab, &dstFull, &bright, &contrast, &sat)
        switch f.pointee.color_range {
        case AVCOL_RANGE_JPEG: srcFull = 1
        case AVCOL_RANGE_MPEG: srcFull = 0
        default: break     // unspecified: swscale's own default for the format (full for yuvj*)
        }
        sws_setColorspaceDetails(s, table, srcFull, table, dstFull, bright, contrast, sat)
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
    return avcodec_default_get_format(c, fmts)
}

/// The VA-API device all contexts of a connection share, or nil (no GPU, no driver): then
/// decoding is in software. Only the first render node is tried, so a machine without one
/// answers at once and libva prints nothing.
func makeVAAPIDevice() -> UnsafeMutablePointer<AVBufferRef>? {
    AVLog.install()
    var ref: UnsafeMutablePointer<AVBufferRef>?
    guard av_hwdevice_ctx_create(&ref, AV_HWDEVICE_TYPE_VAAPI, "/dev/dri/renderD128", nil, 0) >= 0 else { return nil }
    return ref
}

func avError(_ rc: Int32) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buf in
        guard let p = buf.baseAddress, av_strerror(rc, p, 128) == 0 else { return "error \(rc)" }
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
            av_log_set_callback { _, level, fmt, args in
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
