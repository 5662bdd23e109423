import COpenSSL
import Foundation

/// TLS for VeNCrypt over two OpenSSL memory BIOs, so the engine never touches a socket.
/// Anonymous mode (TLSNone/TLSVnc/TLSPlain) offers only anonymous Diffie-Hellman suites, which
/// exist only up to TLS 1.2 and which OpenSSL 3 hides below security level 0. Certificate mode
/// (X509*) completes the handshake without failing on verification, then reports the result so
/// the engine can apply trust on first use.
final class TLSChannel: SecureChannel {
    private let ctx: OpaquePointer
    private let ssl: OpaquePointer
    private let rbio: OpaquePointer   // network → OpenSSL
    private let wbio: OpaquePointer   // OpenSSL → network
    private(set) var handshakeDone = false
    /// Set once the server sent close_notify.
    private(set) var closed = false
    /// Set once our close_notify went into `takeRaw`.
    private var sentClose = false
    var peerClosed: Bool { closed }

    /// Largest plaintext read at once; TLS records are at most 16 KiB anyway.
    static let readChunk = 16 * 1024

    /// `host` is used for SNI and host name checking in certificate mode.
    init(anonymous: Bool, host: String, caFile: String?) throws {
        guard let c = SSL_CTX_new(TLS_client_method()) else { throw TLSChannel.error("cannot create a TLS context") }
        ctx = c
        if anonymous {
            // Anonymous DH/ECDH only: nothing to verify, so nothing else is useful.
            guard SSL_CTX_set_cipher_list(ctx, "aNULL:!eNULL:@SECLEVEL=0") == 1 else {
                SSL_CTX_free(c); throw TLSChannel.error("this OpenSSL has no anonymous Diffie-Hellman cipher suites")
            }
            _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        } else {
            _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
            if let caFile {
                guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else {
                    SSL_CTX_free(c); throw TLSChannel.error("cannot load the CA certificates in \(caFile)")
                }
            } else {
                _ = SSL_CTX_set_default_verify_paths(ctx)
            }
        }
        guard let s = SSL_new(ctx) else { SSL_CTX_free(c); throw TLSChannel.error("cannot create a TLS session") }
        ssl = s
        guard let r = BIO_new(BIO_s_mem()), let w = BIO_new(BIO_s_mem()) else {
            SSL_free(s); SSL_CTX_free(c); throw TLSChannel.error("cannot create memory BIOs")
        }
        rbio = r; wbio = w
        SSL_set_bio(ssl, rbio, wbio)   // the SSL owns both BIOs now
        SSL_set_connect_state(ssl)
        if !anonymous {
            var addr = in6_addr()
            let isIP = host.contains(":") ? inet_pton(AF_INET6, host, &addr) == 1 : inet_pton(AF_INET, host, &addr) == 1
            if isIP {
                _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
            } else if !host.isEmpty {
                _ = SSL_set1_host(ssl, host)
                _ = host.withCString { SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0)) }
            }
        }
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(ctx)
    }

    /// Sends the ClientHello.
    func start() throws { try handshake() }

    private func handshake() throws {
        guard !handshakeDone else { return }
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 { handshakeDone = true; return }
        let e = SSL_get_error(ssl, rc)
        if e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE { return }
        throw TLSChannel.error("TLS handshake failed")
    }

    func ingest(_ p: UnsafeRawPointer, _ n: Int) throws {
        // After close_notify the stream is over: what follows would only pile up in the BIO.
        guard !closed else { return }
        var off = 0
        while off < n {
            let w = BIO_write(rbio, p + off, Int32(min(n - off, Int(Int32.max))))
            guard w > 0 else { throw TLSChannel.error("TLS buffer write failed") }
            off += Int(w)
        }
        if !handshakeDone { try handshake() }
    }

    func drainPlain(into input: InputBuffer) throws {
        guard handshakeDone, !closed else { return }
        while true {
            let tail = input.reserve(TLSChannel.readChunk)
            ERR_clear_error()
            let got = SSL_read(ssl, tail, Int32(TLSChannel.readChunk))
            if got > 0 { input.end += Int(got); continue }
            let e = SSL_get_error(ssl, got)
            if e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE { return }
            if e == SSL_ERROR_ZERO_RETURN { closed = true; return }
            throw TLSChannel.error("TLS receive failed")
        }
    }

    func writePlain(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        guard handshakeDone else { throw ProtocolError("internal: TLS data before the handshake finished") }
        try bytes.withUnsafeBytes { b in
            guard let base = b.baseAddress else { return }
            ERR_clear_error()
            // A memory BIO grows as needed, so SSL_write takes everything at once.
            let n = SSL_write(ssl, base, Int32(b.count))
            guard n == Int32(b.count) else { throw TLSChannel.error("TLS send failed") }
        }
    }

    var hasRaw: Bool { BIO_ctrl_pending(wbio) > 0 }

    /// close_notify, so the server sees an orderly end rather than a truncated stream
    /// (wayvnc and GnuTLS servers log the latter as an error).
    func close() {
        guard handshakeDone, !sentClose else { return }
        sentClose = true
        ERR_clear_error()
        _ = SSL_shutdown(ssl)   // 0: ours sent, the server's not seen yet; that is enough
    }

    func takeRaw() -> [UInt8] {
        let n = Int(BIO_ctrl_pending(wbio))
        guard n > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: n)
        let got = out.withUnsafeMutableBytes { BIO_read(wbio, $0.baseAddress, Int32(n)) }
        if got < Int32(n) { out.removeLast(n - max(0, Int(got))) }
        return out
    }

    // MARK: the peer

    /// Protocol version and cipher, for `--verbose`.
    var description: String {
        let v = SSL_get_version(ssl).map { String(cString: $0) } ?? "?"
        let c = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) } ?? "?"
        return "\(v) \(c)"
    }

    struct PeerCertificate {
        var sha256: [UInt8]
        var subject: String
        /// nil when the chain and the host name verified.
        var verifyError: String?
    }

    func peerCertificate() -> PeerCertificate? {
        guard let cert = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(cert) }
        var md = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var len: UInt32 = 0
        guard X509_digest(cert, EVP_sha256(), &md, &len) == 1 else { return nil }
        var name = [CChar](repeating: 0, count: 512)
        _ = X509_NAME_oneline(X509_get_subject_name(cert), &name, Int32(name.count))
        let subject = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let code = SSL_get_verify_result(ssl)
        let err = code == Int(X509_V_OK) ? nil : String(cString: X509_verify_cert_error_string(code))
        return PeerCertificate(sha256: Array(md.prefix(Int(len))), subject: subject, verifyError: err)
    }

    /// A ProtocolError with OpenSSL's queued reasons appended (they never hold secrets).
    static func error(_ what: String) -> ProtocolError {
        var reasons: [String] = []
        while true {
            let e = ERR_get_error()
            if e == 0 { break }
            var buf = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(e, &buf, buf.count)
            let s = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if reasons.count < 4 { reasons.append(s) }
        }
        return ProtocolError(reasons.isEmpty ? what : "\(what): \(reasons.joined(separator: "; "))")
    }
}
