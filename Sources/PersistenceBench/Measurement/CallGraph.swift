import Foundation

/// A counted region's instructions by function and call, read from callgrind's dump, folded into stacks for a
/// flame graph.
///
/// Callgrind keeps, per function, the instructions it ran itself and, per caller–callee pair, the instructions a
/// call ran in all (its inclusive cost); not whole stacks. Folding walks down from the region's roots, sharing each
/// function's cost among the paths that reach it in proportion to what each call brought it (the attribution
/// gprof and callgrind_annotate's tree make): exact for a function called from one place, an estimate for one
/// called from several (a `malloc` reached from two callers gets each caller's share of its whole cost, in
/// proportion to their calls' instructions). A function the compiler inlined is part of its caller: callgrind,
/// run without per-instruction debug information, sees no frame for it.
package struct CallGraph: Sendable {
    /// Instructions each function ran itself, by name.
    package private(set) var selfCost: [String: UInt64] = [:]
    /// Instructions each call ran in all, by caller, then callee.
    package private(set) var calls: [String: [String: UInt64]] = [:]

    /// The counted region's dump (`callgrind.out.1`, written with `--compress-strings=no`); function names are
    /// demangled with `demangle`.
    package init(callgrindOutput text: String, demangle: (String) -> String = { $0 }) {
        var names: [Substring: String] = [:]
        func name(_ raw: Substring) -> String {
            if let known = names[raw] { return known }
            let readable = demangle(String(raw)).replacingOccurrences(of: ";", with: ",")
            names[raw] = readable
            return readable
        }
        var function: String?
        var callee: String?
        var callCostFollows = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let first = line.first else { continue }
            if first.isNumber || first == "+" || first == "-" || first == "*" {
                guard let current = function else { continue }
                // A cost line: its position, then the events in order, Ir first.
                let fields = line.split(separator: " ", maxSplits: 2)
                let instructions = fields.count > 1 ? UInt64(fields[1]) ?? 0 : 0
                if callCostFollows, let target = callee {
                    if target != current { calls[current, default: [:]][target, default: 0] += instructions }
                    callCostFollows = false
                } else {
                    selfCost[current, default: 0] += instructions
                }
            } else if line.hasPrefix("fn=") {
                function = name(line.dropFirst(3))
            } else if line.hasPrefix("cfn=") {
                callee = name(line.dropFirst(4))
            } else if line.hasPrefix("calls=") {
                callCostFollows = true
            }
        }
    }

    /// Every function's instructions in all: its own and its calls' (a call of itself left out: callgrind's
    /// inclusive cost of a recursive call is already in the outer call's).
    private func inclusive(_ function: String) -> UInt64 {
        (selfCost[function] ?? 0) + (calls[function]?.values.reduce(0, +) ?? 0)
    }

    /// The region's stacks ("root;caller;callee") with the instructions each ran itself; a call that ran less than
    /// `minimumShare` of the region's instructions is drawn as part of its caller (0.5 %: a cell's stacks in about
    /// 8 KB, which a committed baseline keeps for a later check's differential graphs), at most `maximumDepth` frames
    /// deep.
    package func foldedStacks(minimumShare: Double = 0.005, maximumDepth: Int = 96) -> [String: UInt64] {
        let callers = Set(calls.values.flatMap(\.keys))
        var arriving: [String: UInt64] = [:]
        for callees in calls.values { for (callee, cost) in callees { arriving[callee, default: 0] += cost } }
        let functions = Set(selfCost.keys).union(calls.keys).union(callers)
        let total = functions.reduce(UInt64(0)) { sum, function in
            let own = inclusive(function)
            let arrived = arriving[function] ?? 0
            return sum + (own > arrived ? own - arrived : 0)
        }
        let floor = Double(total) * minimumShare
        var stacks: [String: UInt64] = [:]
        var path: [String] = []
        func walk(_ function: String, cost: Double) {
            guard cost >= floor, cost > 0, path.count < maximumDepth, !path.contains(function) else { return }
            path.append(function)
            defer { path.removeLast() }
            let own = Double(inclusive(function))
            guard own > 0 else { return }
            let scale = cost / own
            var drawn = Double(selfCost[function] ?? 0) * scale
            for (callee, callCost) in calls[function] ?? [:] {
                let share = Double(callCost) * scale
                if share >= floor, !path.contains(callee) { walk(callee, cost: share) } else { drawn += share }
            }
            let key = path.joined(separator: ";")
            if drawn >= 0.5 { stacks[key, default: 0] += UInt64(drawn.rounded()) }
        }
        // The roots: what no recorded call brought, the instructions a function ran from a frame that was active
        // when counting started (the workload's loop).
        for function in functions.sorted() {
            let own = inclusive(function)
            let arrived = arriving[function] ?? 0
            if own > arrived { walk(function, cost: Double(own - arrived)) }
        }
        return stacks
    }
}

/// Folded stacks as text: the frames' names once each, then every stack as frame numbers and its instructions
/// ("0;4;9 1234"). Brendan Gregg's folded format repeats every frame's name in every stack: about 60 KB a counted
/// cell, where this is about 8 KB, and a committed baseline keeps one per cell.
package enum FoldedStacks {
    static let header = "# persistbench stacks 1: frame names, then stacks of frame numbers and their instructions"

    package static func text(_ stacks: [String: UInt64]) -> String {
        var numbers: [String: Int] = [:]
        var names: [String] = []
        var lines: [String] = []
        for (stack, count) in stacks.sorted(by: { $0.key < $1.key }) {
            let frames = stack.split(separator: ";").map { frame in
                let name = String(frame)
                if let number = numbers[name] { return String(number) }
                numbers[name] = names.count
                names.append(name)
                return String(names.count - 1)
            }
            lines.append(frames.joined(separator: ";") + " \(count)")
        }
        return ([header, "frames \(names.count)"] + names + lines).joined(separator: "\n") + "\n"
    }

    /// The stacks of `text`; nil when it is not such a text.
    package static func parse(_ text: String) -> [String: UInt64]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2, lines[0] == header, lines[1].hasPrefix("frames "),
            let count = Int(lines[1].dropFirst("frames ".count)), lines.count >= 2 + count
        else { return nil }
        let names = lines[2..<(2 + count)].map(String.init)
        var stacks: [String: UInt64] = [:]
        for line in lines[(2 + count)...] where !line.isEmpty {
            guard let space = line.lastIndex(of: " "), let instructions = UInt64(line[line.index(after: space)...])
            else { return nil }
            var frames: [String] = []
            for number in line[..<space].split(separator: ";") {
                guard let index = Int(number), names.indices.contains(index) else { return nil }
                frames.append(names[index])
            }
            stacks[frames.joined(separator: ";"), default: 0] += instructions
        }
        return stacks
    }
}

/// Swift's own demangler, from the runtime this process runs on (`swift_demangle`), for the names callgrind
/// records mangled; a name it does not know is returned as it is.
package enum SwiftDemangler {
    private typealias Demangle =
        @convention(c) (
            UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UInt32
        ) -> UnsafeMutablePointer<CChar>?

    private static let function: Demangle? = dlsym(nil, "swift_demangle").map {
        unsafeBitCast($0, to: Demangle.self)
    }

    /// `name` demangled and shortened for a frame's label: "GRDBItemStore.item(id:)", "closure #1 in
    /// GetWorkload.run(on:context:)".
    package static func frameName(_ name: String) -> String {
        guard name.hasPrefix("$s") || name.hasPrefix("_$s"), let function else { return name }
        guard let demangled = name.withCString({ function($0, strlen($0), nil, nil, 0) }) else { return name }
        defer { free(demangled) }
        return shortened(String(cString: demangled))
    }

    /// A demangled name without what a frame's label does not need: the compiler's specialization and thunk
    /// prefixes, a witness's conformance, module and outer type names (the last two dotted names stay), argument
    /// types (their labels stay) and the result type.
    package static func shortened(_ full: String) -> String {
        var text = Substring(full)
        var prefix = ""
        // "closure #1 in …", "implicit closure #2 in …": kept, with the function they are in shortened.
        while true {
            let before = text
            for phrase in [
                "function signature specialization ", "generic specialization ", "specialized ", "merged ",
                "partial apply for ", "reabstraction thunk helper ", "outlined copy of ", "static ",
            ] where text.hasPrefix(phrase) {
                text = text.dropFirst(phrase.count)
                if text.hasPrefix("<"), let close = matching(text, from: text.startIndex) {
                    text = text[text.index(after: close)...]
                }
                if text.hasPrefix(" of ") { text = text.dropFirst(4) }
                if text.hasPrefix("of ") { text = text.dropFirst(3) }
            }
            if text.hasPrefix("protocol witness for ") {
                text = text.dropFirst("protocol witness for ".count)
                if let conformance = text.range(of: " in conformance ") { text = text[..<conformance.lowerBound] }
            }
            if let range = text.range(of: " in "), text[..<range.lowerBound].contains("closure #"),
                !text[..<range.lowerBound].contains("(")
            {
                prefix += text[..<range.upperBound]
                text = text[range.upperBound...]
            }
            if text == before { break }
        }
        // The name up to its argument list, and the labels of that list.
        var name = text
        var labels = ""
        if let open = text.firstIndex(of: "("), let close = matching(text, from: open) {
            name = text[..<open]
            labels =
                "("
                + topLevelParts(text[text.index(after: open)..<close]).map { part in
                    part.firstIndex(of: ":").map { part[..<$0].trimmingCharacters(in: .whitespaces) + ":" } ?? "_:"
                }.joined() + ")"
            if labels == "(_:)", text[text.index(after: open)..<close].isEmpty { labels = "()" }
        } else if let space = text.firstIndex(of: " ") {
            name = text[..<space]
        }
        let components = name.split(separator: ".")
        return prefix + components.suffix(2).joined(separator: ".") + labels
    }

    /// The index of the bracket that closes the one at `open` ("(" or "<"), or nil.
    private static func matching(_ text: Substring, from open: Substring.Index) -> Substring.Index? {
        var depth = 0
        var index = open
        while index < text.endIndex {
            switch text[index] {
            case "(", "<", "[": depth += 1
            case ")", "]": depth -= 1
            case ">" where index > text.startIndex && text[text.index(before: index)] != "-": depth -= 1
            default: break
            }
            if depth == 0 { return index }
            index = text.index(after: index)
        }
        return nil
    }

    /// `text` split at its top-level commas.
    private static func topLevelParts(_ text: Substring) -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            switch text[index] {
            case "(", "<", "[": depth += 1
            case ")", "]": depth -= 1
            case ">" where index > text.startIndex && text[text.index(before: index)] != "-": depth -= 1
            case "," where depth == 0:
                parts.append(text[start..<index])
                start = text.index(after: index)
            default: break
            }
            index = text.index(after: index)
        }
        if start < text.endIndex { parts.append(text[start...]) }
        return parts
    }
}

/// Where a counted run keeps each cell's folded stacks and flame graphs: `flames/` in its output directory, one file
/// per cell named by store, workload, scale and repetition ("sqlite-get-2000-1.stacks").
package enum FlameFiles {
    package static let directoryName = "flames"
    package static let stacksSuffix = ".stacks"

    package static func name(of cell: CellID) -> String {
        "\(cell.store)-\(cell.workload)-\(cell.scale.records)-\(cell.repetition)"
    }

    /// The folded stacks of `cell` in the run at `directory`, if it kept them.
    package static func stacks(of cell: CellID, inRunAt directory: URL) -> [String: UInt64]? {
        let file = directory.appendingPathComponent(directoryName).appendingPathComponent(name(of: cell) + stacksSuffix)
        return (try? String(contentsOf: file, encoding: .utf8)).flatMap(FoldedStacks.parse)
    }
}

extension FlameFiles {
    /// Moves the stacks and graphs each of `runs` kept into `run`'s flames/ (the shares of a counted run, joined).
    package static func gather(from runs: [URL], into run: URL) throws {
        let destination = run.appendingPathComponent(directoryName)
        for source in runs.map({ $0.appendingPathComponent(directoryName) })
        where FileManager.default.fileExists(atPath: source.path) {
            try FileSystem.makeDirectory(destination)
            for name in try FileManager.default.contentsOfDirectory(atPath: source.path) {
                let target = destination.appendingPathComponent(name)
                try FileSystem.remove(target)
                try FileManager.default.moveItem(at: source.appendingPathComponent(name), to: target)
            }
        }
    }
}
