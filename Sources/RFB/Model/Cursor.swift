/// A cursor image from the Cursor pseudo-encoding: ARGB pixels (alpha 0 or 255 from the mask).
public struct CursorImage: Equatable, Sendable {
    public var width: Int, height: Int, hotX: Int, hotY: Int
    public var argb: [UInt32]
    public var isEmpty: Bool { width == 0 || height == 0 || !argb.contains { $0 >> 24 != 0 } }
    public init(width: Int, height: Int, hotX: Int, hotY: Int, argb: [UInt32]) {
        self.width = width; self.height = height; self.hotX = hotX; self.hotY = hotY; self.argb = argb
    }
}
