// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Farcast",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "viewer", targets: ["viewer"]),
        .library(name: "RFB", targets: ["RFB"]),
        .library(name: "FarcastTools", targets: ["FarcastTools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // System-library shims: a module map each, flags from pkg-config.
        .systemLibrary(name: "CSDL2", path: "Sources/CSDL2", pkgConfig: "sdl2",
                       providers: [.apt(["libsdl2-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CTurboJPEG", path: "Sources/CTurboJPEG", pkgConfig: "libturbojpeg",
                       providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CXKBCommon", path: "Sources/CXKBCommon", pkgConfig: "xkbcommon",
                       providers: [.apt(["libxkbcommon-dev"])]),
        // the clipboard's own X selection reader: INCR transfers, XFixes change notification
        // (xcb-xfixes.pc requires xcb: one pkg-config name brings both)
        .systemLibrary(name: "CXCB", path: "Sources/CXCB", pkgConfig: "xcb-xfixes",
                       providers: [.apt(["libxcb1-dev", "libxcb-xfixes0-dev"])]),
        .systemLibrary(name: "CSDL2TTF", path: "Sources/CSDL2TTF", pkgConfig: "SDL2_ttf",
                       providers: [.apt(["libsdl2-ttf-dev"])]),
        // libc calls Swift cannot make (variadic prctl)
        .systemLibrary(name: "CSystem", path: "Sources/CSystem"),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        // Open H.264: FFmpeg's decoder and colour conversion (libavcodec.pc brings libavutil's
        // flags; the module map links avutil and swscale)
        .systemLibrary(name: "CAVCodec", path: "Sources/CAVCodec", pkgConfig: "libavcodec",
                       providers: [.apt(["libavcodec-dev", "libavutil-dev", "libswscale-dev"])]),
        // the launcher's discovery of hosts on the network (avahi-daemon over D-Bus)
        .systemLibrary(name: "CAvahi", path: "Sources/CAvahi", pkgConfig: "avahi-client",
                       providers: [.apt(["libavahi-client-dev"])]),
        // Guards in front of the four libxkbcommon calls SDL 2.26's Wayland keyboard makes with
        // unchecked arguments (a SIGSEGV on a virtual keyboard's first key); the viewer
        // executable exports them so SDL's calls reach them (docs/design/wayland-findings.md 3)
        .target(name: "CXKBGuard", linkerSettings: [.linkedLibrary("xkbcommon")]),
        // Our own wl_seat / wl_keyboard and keyboard-shortcuts inhibitor on SDL's Wayland
        // display (protocol code from scripts/wayland/generate-protocols.sh)
        .target(name: "CWaylandKeyboard", linkerSettings: [.linkedLibrary("wayland-client")]),
        // our own libwayland-client calls on SDL's connection: the seat probe before SDL_Init and
        // the wl_shm presenter for Wayland without a GPU (wayland-client.pc from libwayland-dev)
        .target(name: "CWaylandPresent", path: "Sources/CWaylandPresent",
                linkerSettings: [.linkedLibrary("wayland-client")]),
        .target(name: "RFB", dependencies: ["CZlib", "CTurboJPEG", "COpenSSL", "CPNG", "CAVCodec"]),
        .target(name: "VNCSession", dependencies: ["RFB", "CSystem", "CAvahi"]),
        // The files sessions become and come from: PNG, FBS (reading, writing, the recorder),
        // the decode benchmark.
        .target(name: "FarcastTools", dependencies: ["RFB", "CZlib"]),
        .target(name: "Interaction", dependencies: ["RFB", "CXKBCommon"]),
        .target(name: "SDLViewer", dependencies: ["RFB", "VNCSession", "Interaction", "FarcastTools", "CSDL2", "CSDL2TTF", "CXCB", "CPNG", "CWaylandKeyboard", "CWaylandPresent"]),
        .executableTarget(name: "viewer", dependencies: [
            "RFB", "VNCSession", "Interaction", "SDLViewer", "FarcastTools", "CSystem", "CXKBGuard",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], linkerSettings: [
            // the guards must win the global symbol lookup SDL's calls go through
            .unsafeFlags(["-Xlinker", "--export-dynamic-symbol=xkb_keymap_key_get_syms_by_level",
                          "-Xlinker", "--export-dynamic-symbol=xkb_state_update_mask",
                          "-Xlinker", "--export-dynamic-symbol=xkb_keymap_key_for_each",
                          "-Xlinker", "--export-dynamic-symbol=xkb_state_key_get_syms"]),
        ]),
        // libFuzzer targets: scripts/fuzz.sh builds them with -sanitize=fuzzer,address -DFUZZING;
        // a normal build makes the tool that lists them, writes their seeds and replays inputs.
        .systemLibrary(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .executableTarget(name: "farcast-fuzz", dependencies: ["RFB", "FarcastTools", "CZlib", "CTurboJPEG", "CPNG", "CLibFuzzer"], path: "Fuzz/Targets"),
        .testTarget(name: "RFBTests", dependencies: ["RFB", "FarcastTools", "CZlib", "CTurboJPEG", "COpenSSL", "CSystem"]),
        .testTarget(name: "FarcastToolsTests", dependencies: ["FarcastTools", "RFB", "CZlib"]),
        .testTarget(name: "InteractionTests", dependencies: ["Interaction", "RFB", "CXKBCommon"]),
        .testTarget(name: "SDLViewerTests", dependencies: ["SDLViewer", "Interaction", "VNCSession", "RFB", "CSDL2", "CXKBGuard", "CXKBCommon"]),
        .testTarget(name: "VNCSessionTests", dependencies: ["VNCSession", "RFB", "FarcastTools"]),
        // the command line's own logic (config files, environment reads, tool detection)
        .testTarget(name: "ViewerTests", dependencies: ["viewer", "Interaction", "VNCSession", "RFB", "FarcastTools"]),
        .testTarget(name: "InteropTests", dependencies: ["RFB", "VNCSession", "FarcastTools"]),
    ],
    swiftLanguageModes: [.v6]
)
