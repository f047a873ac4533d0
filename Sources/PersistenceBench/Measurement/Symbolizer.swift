import Foundation

/// llvm-symbolizer (the Swift toolchain has one), asked which functions the compiler inlined at addresses of an
/// object, from the object's debug information.
package struct Symbolizer: Sendable {
    let executable: String

    /// The llvm-symbolizer on the PATH; nil where there is none.
    package init?() {
        guard let executable = Subprocess.executablePath(named: "llvm-symbolizer") else { return nil }
        self.executable = executable
    }

    /// Addresses per start of llvm-symbolizer: each is an argument, and a start costs about 50 ms.
    static let batch = 4_000

    /// Each address's frames in `object`, innermost first, as linkage names: the functions inlined there, then the
    /// function the symbol table names. An address llvm-symbolizer cannot answer for is left out; so is every
    /// address of a batch it failed on.
    package func frames(in object: String, at addresses: [UInt64]) -> [UInt64: [String]] {
        var frames: [UInt64: [String]] = [:]
        for start in stride(from: 0, to: addresses.count, by: Self.batch) {
            let arguments =
                [executable, "--obj=\(object)", "--functions=linkage", "--inlines", "--output-style=JSON"]
                + addresses[start..<min(start + Self.batch, addresses.count)].map { "0x" + String($0, radix: 16) }
            guard let output = try? Subprocess.output(of: arguments) else { continue }
            frames.merge(Self.parse(output), uniquingKeysWith: { first, _ in first })
        }
        return frames
    }

    private struct Answer: Decodable {
        struct Frame: Decodable {
            var function: String
            enum CodingKeys: String, CodingKey { case function = "FunctionName" }
        }
        var address: String
        var frames: [Frame]?
        enum CodingKeys: String, CodingKey {
            case address = "Address"
            case frames = "Symbol"
        }
    }

    /// llvm-symbolizer's JSON answer (an array, one entry per address), after whatever it wrote before it.
    static func parse(_ output: String) -> [UInt64: [String]] {
        guard let start = output.range(of: "[{")?.lowerBound,
            let answers = try? JSONDecoder().decode([Answer].self, from: Data(output[start...].utf8))
        else { return [:] }
        var frames: [UInt64: [String]] = [:]
        for answer in answers {
            guard let address = UInt64(answer.address.dropFirst(2), radix: 16) else { continue }
            let names = (answer.frames ?? []).map(\.function).filter { !$0.isEmpty && $0 != "??" }
            if !names.isEmpty { frames[address] = names }
        }
        return frames
    }
}
