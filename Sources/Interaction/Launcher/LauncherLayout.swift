/// Where the launcher's parts are, in window points: the front end draws these rects (times its
/// pixels per point, for HiDPI) and taps are hit-tested against the same ones. Every target is
/// at least 48 points tall, 56 or more in touch use.
public struct LauncherLayout: Equatable, Sendable {
    public struct Header: Equatable, Sendable { public var title: String; public var frame: ViewRect }

    public var width = 0.0, height = 0.0
    public var touch = false
    public var queryField = ViewRect(x: 0, y: 0, w: 0, h: 0)
    public var newButton = ViewRect(x: 0, y: 0, w: 0, h: 0)
    /// Where rows are visible (they are clipped to it).
    public var listArea = ViewRect(x: 0, y: 0, w: 0, h: 0)
    public var headers: [Header] = []
    /// One per row of `Launcher.rows`, scrolled; some lie outside `listArea`.
    public var rowFrames: [ViewRect] = []
    /// The edit button of each row (saved: Edit; recent, discovered: Save).
    public var editButtons: [ViewRect] = []
    public var rowsPerPage = 1
    public var formArea = ViewRect(x: 0, y: 0, w: 0, h: 0)
    public var fieldFrames: [ViewRect] = []
    public var buttonFrames: [ViewRect] = []
    public var confirmFrame = ViewRect(x: 0, y: 0, w: 0, h: 0)
    public var confirmYes = ViewRect(x: 0, y: 0, w: 0, h: 0)
    public var confirmNo = ViewRect(x: 0, y: 0, w: 0, h: 0)
    /// The bottom band kept for the on-screen keyboard, when shown.
    public var keyboard: ViewRect?

    public init() {}

    public static let minTarget = 48.0
    var rowHeight: Double { touch ? 88 : 72 }
    var controlHeight: Double { touch ? 60 : 48 }
}

extension Launcher {
    /// Lays everything out for a window of `width` × `height` points; `keyboardHeight` is kept
    /// free at the bottom for the on-screen keyboard. Scrolls so the selection or focus shows.
    public mutating func layout(width: Double, height: Double, touch: Bool, keyboardHeight: Double = 0) {
        var l = LauncherLayout()
        l.width = width; l.height = height; l.touch = touch
        let m = 16.0, ch = l.controlHeight
        let bottom = height - keyboardHeight
        if keyboardHeight > 0 { l.keyboard = ViewRect(x: 0, y: bottom, w: width, h: keyboardHeight) }
        // top bar: the quick-connect field and the add button
        let newW = touch ? 140.0 : 120.0
        l.queryField = ViewRect(x: m, y: m, w: max(LauncherLayout.minTarget, width - 3 * m - newW), h: ch)
        l.newButton = ViewRect(x: width - m - newW, y: m, w: newW, h: ch)
        let top = m + ch + m
        l.listArea = ViewRect(x: 0, y: top, w: width, h: max(0, bottom - top))
        // rows under section headings, scrolled to keep the selection visible
        let headerH = 32.0, rh = l.rowHeight
        var y = 0.0, last: LauncherItem.Kind?
        var contentFrames: [ViewRect] = []
        var heads: [(String, Double)] = []
        for r in rows {
            let kind: LauncherItem.Kind? = { if case .item(let it) = r { return it.kind }; return nil }()
            if let kind, kind != last { heads.append((kind.heading, y)); y += headerH; last = kind }
            if kind == nil { heads.append(("Quick connect", y)); y += headerH; last = nil }
            contentFrames.append(ViewRect(x: m, y: y, w: width - 2 * m, h: rh - 6))
            y += rh
        }
        let visible = l.listArea.h
        l.rowsPerPage = max(1, Int(visible / rh))
        if selected != scrolledTo, let s = contentFrames[safe: selected] {
            scrolledTo = selected
            if s.y - headerH < listScroll { listScroll = max(0, s.y - headerH) }
            if s.y + s.h > listScroll + visible { listScroll = s.y + s.h - visible + 8 }
        }
        listScroll = max(0, min(listScroll, max(0, y - visible)))
        let dy = top - listScroll
        l.rowFrames = contentFrames.map { ViewRect(x: $0.x, y: $0.y + dy, w: $0.w, h: $0.h) }
        l.headers = heads.map { LauncherLayout.Header(title: $0.0, frame: ViewRect(x: m, y: $0.1 + dy, w: width - 2 * m, h: headerH)) }
        let ew = touch ? 96.0 : 80.0
        l.editButtons = l.rowFrames.map { ViewRect(x: $0.x + $0.w - ew - 8, y: $0.y + ($0.h - LauncherLayout.minTarget) / 2, w: ew, h: LauncherLayout.minTarget) }
        if case .form(let f) = mode { layoutForm(f, &l, bottom: bottom) }
        // delete confirmation: a centred panel with two buttons
        let cw = min(width - 2 * m, 440.0), chh = 150.0
        l.confirmFrame = ViewRect(x: (width - cw) / 2, y: max(m, (bottom - chh) / 2), w: cw, h: chh)
        let bw = (cw - 3 * m) / 2
        l.confirmYes = ViewRect(x: l.confirmFrame.x + m, y: l.confirmFrame.y + chh - m - ch, w: bw, h: ch)
        l.confirmNo = ViewRect(x: l.confirmFrame.x + 2 * m + bw, y: l.confirmYes.y, w: bw, h: ch)
        layout = l
    }

    /// Fields in one column, or two on a wide window; buttons fixed at the bottom.
    private mutating func layoutForm(_ f: LauncherForm, _ l: inout LauncherLayout, bottom: Double) {
        let m = 16.0, ch = l.controlHeight, gap = 8.0
        let titleH = 40.0 + (f.error == nil ? 0 : 28)
        let buttonsY = bottom - m - ch
        l.formArea = ViewRect(x: 0, y: m + titleH, w: l.width, h: max(0, buttonsY - m - m - titleH))
        let columns = l.width >= 900 ? 2 : 1
        let colW = (l.width - Double(columns + 1) * m) / Double(columns)
        let perColumn = (f.fields.count + columns - 1) / columns
        var frames: [ViewRect] = []
        for i in f.fields.indices {
            let c = i / perColumn, r = i % perColumn
            frames.append(ViewRect(x: m + Double(c) * (colW + m), y: Double(r) * (ch + gap), w: colW, h: ch))
        }
        let contentH = Double(perColumn) * (ch + gap)
        if f.focus != scrolledFocus, let s = frames[safe: f.focus] {
            scrolledFocus = f.focus
            if s.y < formScroll { formScroll = s.y }
            if s.y + s.h > formScroll + l.formArea.h { formScroll = s.y + s.h - l.formArea.h }
        }
        formScroll = max(0, min(formScroll, max(0, contentH - l.formArea.h)))
        let dy = l.formArea.y - formScroll
        l.fieldFrames = frames.map { ViewRect(x: $0.x, y: $0.y + dy, w: $0.w, h: $0.h) }
        let bw = min(160.0, (l.width - Double(f.buttons.count + 1) * m) / Double(f.buttons.count))
        l.buttonFrames = f.buttons.indices.map { i in
            ViewRect(x: l.width - Double(f.buttons.count - i) * (bw + m), y: buttonsY, w: bw, h: ch)
        }
    }

    /// A click or tap at `p` (window points).
    public mutating func tap(at p: ViewPoint) -> LauncherAction? {
        switch mode {
        case .list:
            if layout.queryField.contains(p) { return .textFocus(true) }
            if layout.newButton.contains(p) { return openNew() }
            guard layout.listArea.contains(p) else { return nil }
            for (i, r) in layout.rowFrames.enumerated() where r.contains(p) {
                selected = i
                if case .item = rows[safe: i], layout.editButtons[safe: i]?.contains(p) == true {
                    return openEdit(duplicate: false)
                }
                return activate(i)
            }
        case .form(var f):
            if let j = layout.buttonFrames.firstIndex(where: { $0.contains(p) }) {
                f.focus = f.fields.count + j
                mode = .form(f)
                let cmd = press(f.buttons[j], &f)
                if case .form = mode { mode = .form(f) }
                return cmd
            }
            guard layout.formArea.contains(p), let i = layout.fieldFrames.firstIndex(where: { $0.contains(p) }) else { return nil }
            f.focus = i
            if f.fields[i].kind != .text { f.cycle(i, by: 1) }
            mode = .form(f)
            return .textFocus(f.focusIsText)
        case .confirmDelete(let it):
            if layout.confirmYes.contains(p) { mode = .list; return .delete(name: it.title) }
            if layout.confirmNo.contains(p) { mode = .list }
        }
        return nil
    }

    /// Mouse wheel or a finger drag on the list or form: scroll by `dy` points.
    public mutating func scroll(by dy: Double) {
        if case .form = mode { formScroll = max(0, formScroll + dy) } else { listScroll = max(0, listScroll + dy) }
    }
}
