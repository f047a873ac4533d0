import Foundation
import Synchronization

/// llvm-symbolizer (the Swift toolchain has one), asked which functions the compiler inlined at addresses of an
/// object, from the object's debug information.
///
/// One llvm-symbolizer runs per object for as long as this lives, answering address after address: a start reads
/// the debug information of the modules it is asked about again (about 0.5 s for the tool's own), and the counted
/// cells of a run ask about the same executable, mostly at the same addresses, whose answers are kept.
package final class Symbolizer: Sendable {
    let executable: String
    private let sessions = Mutex<[String: Session]>([:])

    /// One object's llvm-symbolizer and its answers so far (no frames where it had none).
    private struct Session {
        var process: Process?
        var input: FileHandle?
        var output: FileHandle?
        var pending = Data()
        var answers: [UInt64: [String]] = [:]
    }

    /// The llvm-symbolizer on the PATH; nil where there is none.
    package init?() {
        guard let executable = Subprocess.executablePath(named: "llvm-symbolizer") else { return nil }
        self.executable = executable
    }

    deinit {
        sessions.withLock { sessions in
            for session in sessions.values {
                try? session.input?.close()
                session.process?.waitUntilExit()
            }
        }
    }

    /// Addresses written before their answers are read: few enough that the answers (about 300 bytes each, more
    /// for a deep inline chain) never fill the pipe while it is still being written to.
    static let batch = 64

    /// Each address's frames in `object`, innermost first, as linkage names: the functions inlined there, then the
    /// function the symbol table names.
    ///
    /// An address llvm-symbolizer cannot answer for is left out; where it cannot be started or stops, so is every
    /// address not answered yet.
    package func frames(in object: String, at addresses: [UInt64]) -> [UInt64: [String]] {
        sessions.withLock { sessions in
            var session = sessions[object] ?? start(object)
            let asked = Array(Set(addresses.filter { session.answers[$0] == nil }))
            for start in stride(from: 0, to: asked.count, by: Self.batch) {
                let batch = asked[start..<min(start + Self.batch, asked.count)]
                guard let answers = ask(Array(batch), in: &session) else { break }
                for address in batch { session.answers[address] = answers[address] ?? [] }
            }
            sessions[object] = session
            return Dictionary(
                uniqueKeysWithValues: addresses.compactMap { address in
                    session.answers[address].flatMap { $0.isEmpty ? nil : (address, $0) }
                })
        }
    }

    private func start(_ object: String) -> Session {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--obj=\(object)", "--functions=linkage", "--inlines", "--output-style=JSON"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return Session() }
        return Session(process: process, input: input.fileHandleForWriting, output: output.fileHandleForReading)
    }

    /// The answers to `addresses`, one line each; nil where llvm-symbolizer is not running or stopped.
    private func ask(_ addresses: [UInt64], in session: inout Session) -> [UInt64: [String]]? {
        guard let input = session.input, let output = session.output else { return nil }
        let lines = addresses.map { "0x" + String($0, radix: 16) + "\n" }.joined()
        guard (try? input.write(contentsOf: Data(lines.utf8))) != nil else { return stop(&session) }
        var answers: [UInt64: [String]] = [:]
        var count = 0
        while count < addresses.count {
            if let newline = session.pending.firstIndex(of: 0x0A) {
                answers.merge(Self.parse(Data(session.pending[..<newline])), uniquingKeysWith: { first, _ in first })
                session.pending.removeSubrange(...newline)
                count += 1
                continue
            }
            let more = output.availableData
            guard !more.isEmpty else { return stop(&session) }
            session.pending.append(more)
        }
        return answers
    }

    private func stop(_ session: inout Session) -> [UInt64: [String]]? {
        try? session.input?.close()
        session.input = nil
        session.output = nil
        return nil
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

    /// One line of llvm-symbolizer's JSON answers: the address's frames, by address.
    static func parse(_ line: Data) -> [UInt64: [String]] {
        guard let answer = try? JSONDecoder().decode(Answer.self, from: line),
            let address = UInt64(answer.address.dropFirst(2), radix: 16)
        else { return [:] }
        let names = (answer.frames ?? []).map(\.function).filter { !$0.isEmpty && $0 != "??" }
        return names.isEmpty ? [:] : [address: names]
    }
}
