// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

@_spi(Fuzzing) import EventDrivenSwiftNATS
// The libFuzzer target of the NATS protocol parser and header decoder. Built and run with
// (Linux, this toolchain; see the article "Beyond One Process"):
//
//   swift build -c release --scratch-path .build-fuzz --product NATSParserFuzzer \
//       -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING
//   mkdir -p .build-fuzz/corpus
//   .build-fuzz/release/NATSParserFuzzer .build-fuzz/corpus -max_total_time=600 -rss_limit_mb=2048
//
// Without `-DFUZZING` it is a plain program that replays the files it is given (a corpus or a
// crash), so the target builds with the rest of the package.
import Foundation

#if FUZZING
    /// libFuzzer's entry point: one input.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        guard let data else { return 0 }
        NATSParserFuzzing.fuzz(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    }

    /// libFuzzer's driver (`int LLVMFuzzerRunDriver(int *, char ***, int (*)(const uint8_t *, size_t))`).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// The entry point under the name SwiftPM gives this executable's `main` on Linux (it links
    /// `main` to it), handing over to libFuzzer's driver.
    @_cdecl("NATSParserFuzzer_main")
    public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var argc = argc
        var argv = argv
        return runFuzzerDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) }
    }
#else
    @main
    struct NATSParserFuzzer {
        static func main() throws {
            for path in CommandLine.arguments.dropFirst() {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                data.withUnsafeBytes { NATSParserFuzzing.fuzz($0) }
                print("\(path): ok")
            }
        }
    }
#endif
