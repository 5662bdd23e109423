// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Farcast",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "viewer", targets: ["viewer"]),
        .library(name: "RFB", targets: ["RFB"]),
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
        .target(name: "RFB", dependencies: ["CZlib", "CTurboJPEG"]),
        .target(name: "VNCSession", dependencies: ["RFB"]),
        .target(name: "SDLViewer", dependencies: ["RFB", "VNCSession", "CSDL2"]),
        .executableTarget(name: "viewer", dependencies: [
            "RFB", "VNCSession", "SDLViewer",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "RFBTests", dependencies: ["RFB", "CZlib", "CTurboJPEG"]),
        .testTarget(name: "VNCSessionTests", dependencies: ["VNCSession", "RFB"]),
        .testTarget(name: "InteropTests", dependencies: ["RFB", "VNCSession"]),
    ],
    swiftLanguageModes: [.v6]
)
