final class ARDHandler: SecurityHandler {
    func step(_ r: inout ByteReader, _ ctx: SecurityContext) throws -> SecurityProgress {
        throw ProtocolError("Apple Remote Desktop authentication is not implemented yet")
    }
}
