final class RSAAESHandler: SecurityHandler {
    let type: UInt8
    init(type: UInt8) { self.type = type }
    func step(_ r: inout ByteReader, _ ctx: SecurityContext) throws -> SecurityProgress {
        throw ProtocolError("RSA-AES is not implemented yet")
    }
}
