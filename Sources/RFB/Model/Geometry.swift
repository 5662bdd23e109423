public struct Rect: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var x: Int, y: Int, w: Int, h: Int
    public init(x: Int, y: Int, w: Int, h: Int) { self.x = x; self.y = y; self.w = w; self.h = h }
    public var isEmpty: Bool { w <= 0 || h <= 0 }
    public var area: Int { isEmpty ? 0 : w * h }
    public var maxX: Int { x + w }
    public var maxY: Int { y + h }
    public func union(_ o: Rect) -> Rect {
        if isEmpty { return o }; if o.isEmpty { return self }
        let nx = min(x, o.x), ny = min(y, o.y)
        return Rect(x: nx, y: ny, w: max(maxX, o.maxX) - nx, h: max(maxY, o.maxY) - ny)
    }
    public func intersection(_ o: Rect) -> Rect {
        let nx = max(x, o.x), ny = max(y, o.y)
        let mx = min(maxX, o.maxX), my = min(maxY, o.maxY)
        return mx > nx && my > ny ? Rect(x: nx, y: ny, w: mx - nx, h: my - ny) : Rect(x: 0, y: 0, w: 0, h: 0)
    }
    public func intersects(_ o: Rect) -> Bool { !intersection(o).isEmpty }
    public var description: String { "\(w)x\(h)+\(x)+\(y)" }
}
