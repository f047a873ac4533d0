import Foundation

// MARK: - The call graph

/// A counted region's instructions by function and call, read from callgrind's dump, folded into stacks for a
/// flame graph.
///
/// Callgrind keeps, per function, the instructions it ran itself and, per caller–callee pair, the instructions a
/// call ran in all (its inclusive cost); not whole stacks. Folding walks down from the region's roots, sharing each
/// function's cost among the paths that reach it in proportion to what each call brought it (the attribution
/// gprof and callgrind_annotate's tree make): exact for a function called from one place, an estimate for one
/// called from several (a `malloc` reached from two callers gets each caller's share of its whole cost, in
/// proportion to their calls' instructions).
///
/// A function the compiler inlined has no symbol, so callgrind counts it in its caller. Where the dump has each
/// instruction's address (callgrind's `--dump-instr=yes`), `resolveInlinedFrames` asks the object's debug
/// information which functions were inlined at each one, and folding draws them as frames of their own inside the
/// function they were inlined into, named with an " [inlined]" suffix.
package struct CallGraph: Sendable {
    /// Instructions each function ran itself, by name.
    package private(set) var selfCost: [String: UInt64] = [:]
    /// Instructions each call ran in all, by caller, then callee.
    package private(set) var calls: [String: [String: UInt64]] = [:]
    /// Where in its object each function ran its instructions and made its calls (a dump with addresses only).
    private var sites: [String: [Site: SiteCost]] = [:]
    /// The mangled names each function's frames came from (two specializations can shorten alike), for matching a
    /// symbolizer's answer.
    private var rawNames: [String: Set<String>] = [:]
    /// The frames inlined at a function's sites, outermost first (as `resolveInlinedFrames` found them).
    private var inlined: [String: [Site: [String]]] = [:]

    /// An instruction's place: the object it is in (as callgrind names it) and its address there.
    struct Site: Hashable, Sendable {
        var object: String
        var address: UInt64
    }

    /// What a function did at one instruction, or in a part of itself: the instructions it ran, and the
    /// instructions of the calls it made there by callee.
    struct SiteCost: Sendable {
        var instructions: UInt64 = 0
        var calls: [String: UInt64] = [:]
        var total: UInt64 { instructions + calls.values.reduce(0, +) }
    }

    /// The counted region's dump (`callgrind.out.1`, written with `--compress-strings=no`); function names are
    /// demangled with `demangle`.
    package init(callgrindOutput text: String, demangle: (String) -> String = { $0 }) {
        var names: [Substring: String] = [:]
        func name(_ raw: Substring) -> String {
            if let known = names[raw] { return known }
            let readable = demangle(String(raw)).replacingOccurrences(of: ";", with: ",")
            names[raw] = readable
            rawNames[readable, default: []].insert(String(raw))
            return readable
        }
        var state = DumpState()
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let first = line.first else { continue }
            if first.isNumber || first == "+" || first == "-" || first == "*" {
                add(costLine: line, state: &state)
            } else if line.hasPrefix("fn=") {
                state.function = name(line.dropFirst(3))
                state.lastAddress = 0
            } else if line.hasPrefix("ob=") {
                state.object = String(line.dropFirst(3))
            } else if line.hasPrefix("cfn=") {
                state.callee = name(line.dropFirst(4))
            } else if line.hasPrefix("calls=") {
                state.callCostFollows = true
            } else if line.hasPrefix("positions:") {
                let kinds = line.dropFirst("positions:".count).split(separator: " ")
                state.positions = max(kinds.count, 1)
                state.byAddress = kinds == ["instr"]
            }
        }
    }

    /// Where the reading of a dump stands: its positions, the current object, function and callee, and whether the
    /// next cost line is a call's.
    private struct DumpState {
        var positions = 1
        var byAddress = false
        var object = ""
        var function: String?
        var callee: String?
        var callCostFollows = false
        /// Callgrind writes an address relative to the last cost line's (not a call's), and afresh in each function.
        var lastAddress: UInt64 = 0

        func address(_ token: Substring) -> UInt64 {
            if token.hasPrefix("0x") { return UInt64(token.dropFirst(2), radix: 16) ?? 0 }
            if token == "*" { return lastAddress }
            guard let offset = Int64(token) else { return 0 }
            return UInt64(Int64(bitPattern: lastAddress) + offset)
        }
    }

    /// A cost line: its positions, then the events in order, Ir first; a call's cost to its callee, else the
    /// function's own.
    private mutating func add(costLine line: Substring, state: inout DumpState) {
        guard let current = state.function else { return }
        let fields = line.split(separator: " ", maxSplits: state.positions + 1)
        let instructions = fields.count > state.positions ? UInt64(fields[state.positions]) ?? 0 : 0
        let site = state.byAddress ? Site(object: state.object, address: state.address(fields[0])) : nil
        if state.callCostFollows, let target = state.callee {
            if target != current {
                calls[current, default: [:]][target, default: 0] += instructions
                if let site {
                    sites[current, default: [:]][site, default: SiteCost()].calls[target, default: 0] += instructions
                }
            }
            state.callCostFollows = false
        } else {
            selfCost[current, default: 0] += instructions
            if let site {
                sites[current, default: [:]][site, default: SiteCost()].instructions += instructions
                state.lastAddress = site.address
            }
        }
    }

    /// The objects (as callgrind names them) whose instruction addresses the dump holds.
    package var objects: Set<String> { Set(sites.values.flatMap { $0.keys.map(\.object) }) }

    /// Finds the functions the compiler inlined at each address of `object` by `symbolize` (each address's frames,
    /// innermost first, as linkage names: the last is the function the symbol table names, whose frames callgrind
    /// counted).
    ///
    /// An address whose outermost frame is not the function callgrind counted it in (an alias, an object without debug
    /// information) keeps no inlined frames. Names are demangled with `demangle`, as the dump's.
    package mutating func resolveInlinedFrames(
        in object: String, minimumShare: Double = Self.minimumShare,
        symbolize: (_ object: String, _ addresses: [UInt64]) -> [UInt64: [String]],
        demangle: (String) -> String = { $0 }
    ) {
        // Only a function that ran `minimumShare` of the region with its calls can be drawn, so only its addresses
        // are asked about (a GRDB lookup runs code at 26,500 addresses of the tool, most in functions too small to
        // draw).
        let floor = Double(regionTotal) * minimumShare
        let drawn = sites.filter { Double(inclusive($0.key)) >= floor }
        let wanted = drawn.values.flatMap { $0.keys.filter { $0.object == object }.map(\.address) }
        guard !wanted.isEmpty else { return }
        let frames = symbolize(object, Array(Set(wanted)).sorted())
        var names: [String: String] = [:]
        for (function, functionSites) in drawn {
            let raws = rawNames[function] ?? [function]
            for site in functionSites.keys where site.object == object {
                guard let chain = frames[site.address], chain.count > 1, let outermost = chain.last,
                    raws.contains(outermost)
                else { continue }
                inlined[function, default: [:]][site] = chain.dropLast().reversed().map { frame in
                    if let known = names[frame] { return known }
                    let readable = demangle(frame).replacingOccurrences(of: ";", with: ",") + Self.inlinedSuffix
                    names[frame] = readable
                    return readable
                }
            }
        }
    }

    /// What marks a frame the compiler inlined into the frame below it.
    package static let inlinedSuffix = " [inlined]"

    /// The share of the region's instructions under which a call or an inlined frame is drawn in its caller.
    package static let minimumShare = 0.005

    /// Every function the dump names, as caller, callee or both.
    private var functions: Set<String> { Set(selfCost.keys).union(calls.keys).union(calls.values.flatMap(\.keys)) }

    /// The instructions each function's callers' calls brought it.
    private var arriving: [String: UInt64] {
        var arriving: [String: UInt64] = [:]
        for callees in calls.values { for (callee, cost) in callees { arriving[callee, default: 0] += cost } }
        return arriving
    }

    /// The region's instructions: every function's beyond what calls brought it (the roots' whole cost).
    private var regionTotal: UInt64 {
        let arriving = self.arriving
        return functions.reduce(UInt64(0)) { sum, function in
            let own = inclusive(function)
            let arrived = arriving[function] ?? 0
            return sum + (own > arrived ? own - arrived : 0)
        }
    }

    /// Every function's instructions in all: its own and its calls' (a call of itself left out: callgrind's
    /// inclusive cost of a recursive call is already in the outer call's).
    private func inclusive(_ function: String) -> UInt64 {
        (selfCost[function] ?? 0) + (calls[function]?.values.reduce(0, +) ?? 0)
    }

    /// A function's cost split by the frames inlined where it was spent (outermost first; none where nothing was
    /// inlined, or where the dump has no addresses).
    private func parts(of function: String) -> [[String]: SiteCost] {
        guard let frames = inlined[function], let functionSites = sites[function] else {
            return [[]: SiteCost(instructions: selfCost[function] ?? 0, calls: calls[function] ?? [:])]
        }
        var parts: [[String]: SiteCost] = [:]
        for (site, cost) in functionSites {
            let chain = frames[site] ?? []
            parts[chain, default: SiteCost()].instructions += cost.instructions
            parts[chain, default: SiteCost()].calls.merge(cost.calls, uniquingKeysWith: +)
        }
        return parts
    }

    // MARK: - Folded stacks

    /// The region's stacks ("root;caller;callee") with the instructions each ran itself; a call or an inlined
    /// frame that ran less than `minimumShare` of the region's instructions is drawn as part of its caller (0.5 %: a
    /// cell's stacks in about 10 KB, which a committed baseline keeps for a later check's differential graphs), at
    /// most `maximumDepth` frames deep.
    package func foldedStacks(minimumShare: Double = Self.minimumShare, maximumDepth: Int = 96) -> [String: UInt64] {
        let (functions, arriving) = (self.functions, self.arriving)
        let floor = Double(regionTotal) * minimumShare
        var stacks: [String: UInt64] = [:]
        var path: [String] = []
        var split: [String: (parts: [(chain: [String], cost: SiteCost)], reached: [[String]: UInt64])] = [:]
        func splitting(_ function: String) -> (parts: [(chain: [String], cost: SiteCost)], reached: [[String]: UInt64])
        {
            let parts = parts(of: function).sorted { $0.key.lexicographicallyPrecedes($1.key) }.map {
                ($0.key, $0.value)
            }
            var reached: [[String]: UInt64] = [:]
            for (chain, part) in parts where !chain.isEmpty {
                for count in 1...chain.count { reached[Array(chain.prefix(count)), default: 0] += part.total }
            }
            split[function] = (parts, reached)
            return (parts, reached)
        }
        func walk(_ function: String, cost: Double) {
            guard cost >= floor, cost > 0, path.count < maximumDepth, !path.contains(function) else { return }
            path.append(function)
            defer { path.removeLast() }
            let own = Double(inclusive(function))
            guard own > 0 else { return }
            let scale = cost / own
            // A function reached from many paths is split by its inlined frames once.
            let (parts, reached) = split[function] ?? splitting(function)
            var drawn: [[String]: Double] = [:]
            for (chain, part) in parts {
                // An inlined frame is drawn where it and what it holds reach the floor; a smaller one is part of the
                // frame it was inlined into.
                var frames = chain
                while !frames.isEmpty, Double(reached[frames] ?? 0) * scale < floor { frames.removeLast() }
                drawn[frames, default: 0] += Double(part.instructions) * scale
                for (callee, callCost) in part.calls.sorted(by: { $0.key < $1.key }) {
                    let share = Double(callCost) * scale
                    if share >= floor, !path.contains(callee) {
                        path += frames
                        walk(callee, cost: share)
                        path.removeLast(frames.count)
                    } else {
                        drawn[frames, default: 0] += share
                    }
                }
            }
            for (frames, amount) in drawn where amount >= 0.5 {
                stacks[(path + frames).joined(separator: ";"), default: 0] += UInt64(amount.rounded())
            }
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

// MARK: - Their text

/// Folded stacks as text: the frames' names once each, then the stacks as a tree, a line per frame: the line of the
/// frame it was called from ("-" for a root), its name's number and the instructions it ran itself ("12 4 1234").
///
/// Brendan Gregg's folded format repeats every frame's name in every stack: about 60 KB a counted cell, and a list of
/// each stack's frame numbers took 18–104 KB once inlined frames made stacks deeper; this takes about 10 KB, and a
/// committed baseline keeps one per cell.
package enum FoldedStacks {
    static let header =
        "# persistbench stacks 2: frame names, then one line per frame: its caller's line, name, instructions"
    /// Files written before inlined frames (2026-11-29): each stack's frame numbers and its instructions ("0;4;9 1234").
    static let listHeader = "# persistbench stacks 1: frame names, then stacks of frame numbers and their instructions"

    package static func text(_ stacks: [String: UInt64]) -> String {
        var numbers: [String: Int] = [:]
        var names: [String] = []
        var nodes: [[Int]: Int] = [:]
        var lines: [String] = []
        for (stack, count) in stacks.sorted(by: { $0.key < $1.key }) {
            var path: [Int] = []
            for frame in stack.split(separator: ";").map(String.init) {
                let number = numbers[frame] ?? names.count
                if number == names.count {
                    numbers[frame] = number
                    names.append(frame)
                }
                let parent = nodes[path].map(String.init) ?? "-"
                path.append(number)
                if nodes[path] == nil {
                    nodes[path] = lines.count
                    lines.append("\(parent) \(number) 0")
                }
            }
            if let line = nodes[path] { lines[line] = lines[line].dropLast(2) + " \(count)" }
        }
        return ([header, "frames \(names.count)"] + names + lines).joined(separator: "\n") + "\n"
    }

    /// The stacks of `text`; nil when it is not such a text.
    package static func parse(_ text: String) -> [String: UInt64]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2, lines[0] == header || lines[0] == listHeader, lines[1].hasPrefix("frames "),
            let count = Int(lines[1].dropFirst("frames ".count)), lines.count >= 2 + count
        else { return nil }
        let names = lines[2..<(2 + count)].map(String.init)
        var stacks: [String: UInt64] = [:]
        var paths: [String] = []
        for line in lines[(2 + count)...] where !line.isEmpty {
            let fields = line.split(separator: " ")
            if lines[0] == listHeader {
                guard fields.count == 2, let instructions = UInt64(fields[1]) else { return nil }
                var frames: [String] = []
                for number in fields[0].split(separator: ";") {
                    guard let index = Int(number), names.indices.contains(index) else { return nil }
                    frames.append(names[index])
                }
                stacks[frames.joined(separator: ";"), default: 0] += instructions
                continue
            }
            guard fields.count == 3, let index = Int(fields[1]), names.indices.contains(index),
                let instructions = UInt64(fields[2])
            else { return nil }
            var path = names[index]
            if fields[0] != "-" {
                guard let parent = Int(fields[0]), paths.indices.contains(parent) else { return nil }
                path = paths[parent] + ";" + path
            }
            paths.append(path)
            if instructions > 0 { stacks[path, default: 0] += instructions }
        }
        return stacks
    }
}

// MARK: - Their files

/// Where a counted run keeps each cell's folded stacks and flame graphs: `flames/` in its output directory, one file
/// per cell named by store, workload, scale and repetition ("sqlite-get-2000-1.stacks").
package enum FlameFiles {
    package static let directoryName = "flames"
    package static let stacksSuffix = ".stacks"

    /// The file of `cell` with `suffix` (its stacks, ".svg" its graph, ".diff.svg" its differential one) in the
    /// run at `directory`.
    package static func file(of cell: CellID, inRunAt directory: URL, suffix: String = stacksSuffix) -> URL {
        directory.appendingPathComponent(directoryName).appendingPathComponent(cell.fileName + suffix)
    }

    /// The folded stacks of `cell` in the run at `directory`, if it kept them.
    package static func stacks(of cell: CellID, inRunAt directory: URL) -> [String: UInt64]? {
        (try? String(contentsOf: file(of: cell, inRunAt: directory), encoding: .utf8)).flatMap(FoldedStacks.parse)
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
