import CXKBCommon
import CXKBGuard
import Foundation
import Interaction
import XCTest

/// The guards in front of libxkbcommon (CXKBGuard; the viewer exports them so SDL 2.26's
/// Wayland keyboard calls them). Linked into this test binary, they are also what our own
/// translator calls: those calls must come through unchanged.
final class XKBGuardTests: XCTestCase {
    private func oneLayoutKeymap() throws -> (OpaquePointer, OpaquePointer) {
        let ctx = try XCTUnwrap(xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES))
        // The names' C strings must outlive the call (a Swift string passed straight into the
        // initialiser is a pointer valid only during it).
        let built: OpaquePointer? = "evdev".withCString { r in
            "pc105".withCString { m in
                "us".withCString { l in
                    var names = xkb_rule_names(rules: r, model: m, layout: l, variant: nil, options: nil)
                    return xkb_keymap_new_from_names(ctx, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
                }
            }
        }
        let km = try XCTUnwrap(built)
        return (ctx, km)
    }

    /// SDL 2.26's call for a virtual keyboard before any wl_keyboard.modifiers: layout
    /// XKB_LAYOUT_INVALID on a one-layout keymap (libxkbcommon 1.5 would read past the key's
    /// groups): the guard uses layout 0.
    func testAnInvalidLayoutOnAOneLayoutKeymapReadsLayoutZero() throws {
        let (ctx, km) = try oneLayoutKeymap()
        defer { xkb_keymap_unref(km); xkb_context_unref(ctx) }
        XCTAssertEqual(xkb_keymap_num_layouts(km), 1)
        let keyA: xkb_keycode_t = 30 + 8
        var syms: UnsafePointer<xkb_keysym_t>?
        XCTAssertEqual(xkb_keymap_key_get_syms_by_level(km, keyA, XKB_LAYOUT_INVALID, 0, &syms), 1)
        XCTAssertEqual(syms?.pointee, xkb_keysym_from_name("a", XKB_KEYSYM_NO_FLAGS))
        XCTAssertNotEqual(farcast_xkb_guard_changes() & UInt32(FARCAST_XKB_GUARD_LAYOUT), 0)
        // a key the keymap lacks altogether: no layouts, no symbols
        XCTAssertEqual(xkb_keymap_key_get_syms_by_level(km, 0xfff0, XKB_LAYOUT_INVALID, 0, &syms), 0)
    }

    func testNullKeymapAndStateGiveNothing() {
        var syms: UnsafePointer<xkb_keysym_t>? = UnsafePointer(bitPattern: 1)
        XCTAssertEqual(xkb_keymap_key_get_syms_by_level(nil, 38, 0, 0, &syms), 0)
        XCTAssertNil(syms)
        XCTAssertEqual(xkb_state_key_get_syms(nil, 38, &syms), 0)
        XCTAssertEqual(xkb_state_update_mask(nil, 1, 0, 0, 0, 0, 0).rawValue, 0)
        xkb_keymap_key_for_each(nil, { _, _, _ in }, nil)
        let changes = farcast_xkb_guard_changes()
        XCTAssertNotEqual(changes & UInt32(FARCAST_XKB_GUARD_NULL_KEYMAP), 0)
        XCTAssertNotEqual(changes & UInt32(FARCAST_XKB_GUARD_NULL_STATE), 0)
    }

    /// Our translator's calls go through the guards here and still mean what they meant.
    func testOurOwnTranslatorIsUnchanged() throws {
        let t = try KeyboardTranslator(spec: KeyboardLayoutSpec(layout: "de"))
        XCTAssertEqual(t.key(evdevCode: 21, down: true).first?.keysym, xkb_keysym_from_name("z", XKB_KEYSYM_NO_FLAGS))
        _ = t.key(evdevCode: 21, down: false)
        _ = t.key(evdevCode: 42, down: true)
        XCTAssertEqual(t.key(evdevCode: 21, down: true).first?.keysym, xkb_keysym_from_name("Z", XKB_KEYSYM_NO_FLAGS))
    }

    /// The guard's cost next to the real function (dlsym RTLD_NEXT from here finds
    /// libxkbcommon's): a few nanoseconds a call at most, where SDL makes a handful per key.
    func testTheGuardCostsNothingMeasurable() throws {
        let (ctx, km) = try oneLayoutKeymap()
        defer { xkb_keymap_unref(km); xkb_context_unref(ctx) }
        typealias Fn = @convention(c) (OpaquePointer?, xkb_keycode_t, xkb_layout_index_t, xkb_level_index_t,
                                       UnsafeMutablePointer<UnsafePointer<xkb_keysym_t>?>?) -> Int32
        let lib = try XCTUnwrap(dlopen("libxkbcommon.so.0", RTLD_NOW | RTLD_NOLOAD))
        let realPtr = try XCTUnwrap(dlsym(lib, "xkb_keymap_key_get_syms_by_level"))
        let real = unsafeBitCast(realPtr, to: Fn.self)
        let n = 200_000
        var syms: UnsafePointer<xkb_keysym_t>?
        func time(_ body: () -> Void) -> Double {
            let t0 = DispatchTime.now().uptimeNanoseconds
            body()
            return Double(DispatchTime.now().uptimeNanoseconds - t0) / Double(n)
        }
        var sum = 0
        let guarded = time { for i in 0..<n { sum += Int(xkb_keymap_key_get_syms_by_level(km, xkb_keycode_t(9 + i % 100), 0, 0, &syms)) } }
        let direct = time { for i in 0..<n { sum += Int(real(km, xkb_keycode_t(9 + i % 100), 0, 0, &syms)) } }
        print("xkb guard: \(String(format: "%.1f", guarded)) ns a call guarded, \(String(format: "%.1f", direct)) ns direct (sum \(sum))")
        XCTAssertLessThan(guarded - direct, 200, "the guard adds one bounds query a call")
    }
}
