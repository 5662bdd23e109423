#if canImport(Glibc)
import Glibc
#endif
#if FUZZING
import CLibFuzzer
#endif

// Built two ways. With -DFUZZING and -sanitize=fuzzer,address (scripts/fuzz.sh) main hands
// over to libFuzzer, which calls the functions below; FARCAST_FUZZ_TARGET names the target. A
// normal build makes a tool that lists the targets, writes their seeds and replays inputs
// (no sanitizers: for looking at an input under a debugger).

#if FUZZING
/// Set once by LLVMFuzzerInitialize, before libFuzzer's single thread runs any input.
nonisolated(unsafe) private var selected: FuzzTarget?

/// SwiftPM links an executable's main to `<module>_main`; libFuzzer's own main is left out, so
/// this one runs libFuzzer's driver.
@_cdecl("farcast_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc, argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzerTestOneInput(data, size) }
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutableRawPointer) -> CInt {
    guard let name = environment("FARCAST_FUZZ_TARGET"), name != "list" else {
        printTargets()
        exit(environment("FARCAST_FUZZ_TARGET") == "list" ? 0 : 2)
    }
    if let dir = environment("FARCAST_FUZZ_WRITE_SEEDS") {
        // "all": every target's seeds into DIR/TARGET, the recordings read once
        let ts = name == "all" ? allTargets : target(named: name).map { [$0] } ?? []
        let corpus = environment("FARCAST_CORPUS_DIR").map { CorpusRecordings(directory: $0) }
        exit(!ts.isEmpty && ts.allSatisfy { writeSeeds($0, to: name == "all" ? dir + "/" + $0.name : dir, corpus: corpus) } ? 0 : 1)
    }
    guard let t = target(named: name) else {
        warn("farcast-fuzz: no target \(name)")
        exit(2)
    }
    selected = t
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selected?.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}
#else
@main
enum FarcastFuzzTool {
    static func main() {
        let args = CommandLine.arguments
        switch (args.count > 1 ? args[1] : "", args.count) {
        case ("list", _):
            printTargets()
        case ("split", 3):
            // how the recordings split (checking the seed source)
            for (name, messages) in CorpusRecordings(directory: args[2]).recordings {
                var rects: [Int32: (Int, Int)] = [:]
                for case .update(let rs) in messages { for r in rs { rects[r.encoding, default: (0, 0)].0 += 1; rects[r.encoding]!.1 = max(rects[r.encoding]!.1, r.w * r.h) } }
                print(name, messages.count, "messages;", rects.sorted { $0.key < $1.key }.map { "enc \($0.key): \($0.value.0) rects, largest \($0.value.1) px" }.joined(separator: ", "))
            }
        case ("seeds", 4...5):
            guard let t = named(args[2]) else { exit(2) }
            exit(writeSeeds(t, to: args[3], corpus: args.count > 4 ? CorpusRecordings(directory: args[4]) : nil) ? 0 : 1)
        case ("run", 4...):
            guard let t = named(args[2]) else { exit(2) }
            // FARCAST_FUZZ_REPEAT=n: each input n times (the harness's own cost, without sanitizers)
            let repeats = Int(environment("FARCAST_FUZZ_REPEAT") ?? "") ?? 1
            var n = 0
            for path in args[3...] {
                let files = listDirectory(path).map { path + "/" + $0 }
                for f in files.isEmpty ? [path] : files.sorted() {
                    guard let bytes = readFile(f) else { warn("cannot read \(f)"); exit(1) }
                    for _ in 0..<repeats { bytes.withUnsafeBufferPointer { t.run($0) } }
                    n += 1
                }
            }
            print("\(n) inputs ran through \(t.name) without a crash")
        default:
            print("""
                usage: farcast-fuzz list                        the targets
                       farcast-fuzz seeds TARGET DIR [CORPUS]   write TARGET's seeds (and ones from the recordings in CORPUS)
                       farcast-fuzz run TARGET FILE|DIR...      run inputs through TARGET (FARCAST_FUZZ_VERBOSE=1: a line
                                                                each; FARCAST_FUZZ_REPEAT=N: each N times)
                       farcast-fuzz split CORPUS                how the recordings split into messages and rects
                (scripts/fuzz.sh builds the libFuzzer binary and runs it)
                """)
            exit(args.count > 1 ? 2 : 0)
        }
    }

    static func named(_ name: String) -> FuzzTarget? {
        guard let t = target(named: name) else { warn("farcast-fuzz: no target \(name)"); return nil }
        return t
    }
}
#endif

/// A line on standard error.
func warn(_ s: String) { _ = (s + "\n").utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) } }

func environment(_ key: String) -> String? { getenv(key).map { String(cString: $0) } }

/// One line per target: name, -max_len, summary (tab-separated for scripts/fuzz.sh).
func printTargets() {
    for t in allTargets { print("\(t.name)\t\(t.maxLength)\t\(t.summary)") }
}

/// Writes the target's seeds into `dir` as seed-N files; with `corpus`, also those split
/// from the recorded sessions.
func writeSeeds(_ t: FuzzTarget, to dir: String, corpus: CorpusRecordings?) -> Bool {
    var seeds = t.seeds()
    if let corpus, let split = t.corpusSeeds { seeds += split(corpus) }
    seeds = seeds.filter { $0.count <= t.maxLength }
    for i in dir.indices where dir[i] == "/" && i != dir.startIndex { mkdir(String(dir[..<i]), 0o755) }   // mkdir -p
    mkdir(dir, 0o755)
    for (i, s) in seeds.enumerated() where s.count <= t.maxLength {
        let path = dir + "/seed-\(i)"
        guard let f = fopen(path, "wb") else { warn("cannot write \(path)"); return false }
        _ = s.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
    }
    print("\(t.name): \(seeds.count) seeds in \(dir)")
    return true
}
