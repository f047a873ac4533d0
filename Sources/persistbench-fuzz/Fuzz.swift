import Foundation
import FuzzTargets

#if FUZZING
    /// libFuzzer's driver (`make fuzz` builds this with `-sanitize=fuzzer -D FUZZING`), given each input for the
    /// target that `PERSISTBENCH_FUZZ_TARGET` names; libFuzzer's options and corpus directories as arguments.
    ///
    /// libFuzzer's own `main` is linked too (`-sanitize=fuzzer` links its runtime whole): whichever the linker keeps,
    /// inputs reach `fuzzOne`.
    @main struct Fuzz {
        static func main() {
            _ = target
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runDriver(&argc, &argv) { fuzzOne($0, $1) })
        }
    }

    /// The target `PERSISTBENCH_FUZZ_TARGET` names; the process stops with a usage line when it names none.
    private let target: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["PERSISTBENCH_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("set PERSISTBENCH_FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(2)
        }
        return target
    }()

    /// One input.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        target.run(bytes.map { Data(bytes: $0, count: count) } ?? Data())
        return 0
    }

    /// libFuzzer's `LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t))`.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#else
    /// Without the fuzzer: replays inputs, `persistbench-fuzz TARGET FILE…`, each file fed to the target once
    /// (a crash the fuzzer found, run again under a debugger).
    @main struct Replay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
                FileHandle.standardError.write(Data("usage: persistbench-fuzz TARGET FILE… (TARGET: \(names))\n".utf8))
                exit(2)
            }
            for path in arguments.dropFirst() {
                guard let input = FileManager.default.contents(atPath: path) else {
                    FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                    exit(2)
                }
                target.run(input)
            }
            print("\(arguments.count - 1) inputs fed to \(name), none trapped")
        }
    }
#endif
