import Foundation
import PersistenceBench

/// README's findings section and docs/findings.md's figure-by-figure part, rendered from the declarations, and the
/// check that what is published is what they render.
package enum FindingPages {
    /// The lines that open and close each rendered part; what lies between is the tool's.
    package static let begin = "<!-- findings: rendered by `persistbench findings` from docs/findings.json -->"
    package static let end = "<!-- findings: end -->"

    /// A finding as rendered: its text in pieces, each either words or a figure.
    package struct Rendered {
        package enum Piece { case words(String), figure(name: String, RenderedFigure) }
        package var number: Int
        package var pieces: [Piece]
        package var text: String {
            pieces.map {
                switch $0 {
                case .words(let words): words
                case .figure(_, let figure): figure.text
                }
            }.joined()
        }
    }

    /// Each finding's README item, in pieces: its title, its sentence with the figures in place, the link and the
    /// machine, commit and detail of its runs.
    package static func render(_ declarations: FindingDeclarations, renderer: inout FindingRenderer) throws
        -> [Rendered]
    {
        try declarations.findings.enumerated().map { offset, finding in
            let number = offset + 1
            var pieces: [Rendered.Piece] = [.words("\(number). **\(finding.title)**: ")]
            var rest = Substring(finding.text)
            var used: Set<String> = []
            while let open = rest.firstIndex(of: "{") {
                guard let close = rest[open...].firstIndex(of: "}") else {
                    throw BenchError("finding \(number): a '{' with no '}' in its text")
                }
                let name = String(rest[rest.index(after: open)..<close])
                guard let figure = finding.figures[name] else {
                    throw BenchError("finding \(number): its text names {\(name)}, which it does not declare")
                }
                used.insert(name)
                pieces.append(.words(String(rest[..<open])))
                do {
                    pieces.append(.figure(name: name, try renderer.render(figure, of: finding)))
                } catch {
                    throw BenchError("finding \(number), figure {\(name)}: \(error)")
                }
                rest = rest[rest.index(after: close)...]
            }
            pieces.append(.words(String(rest)))
            let unused = Set(finding.figures.keys).subtracting(used)
            guard unused.isEmpty else {
                throw BenchError(
                    "finding \(number) declares \(unused.sorted().joined(separator: ", ")) and never uses it")
            }
            let runs = try finding.runs.map { try provenance(of: $0, renderer: &renderer) }
            let commits = runs.map(\.commit).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            pieces.append(
                .words(
                    "\n   [run](\(finding.link)) · " + Set(runs.map(\.cpu)).sorted().joined(separator: ", ") + " · "
                        + commits.joined(separator: ", ") + " · [cells](docs/findings.md#finding-\(number))"))
            return Rendered(number: number, pieces: pieces)
        }
    }

    /// README's section: the header and the numbered findings.
    package static func readme(_ declarations: FindingDeclarations, _ rendered: [Rendered]) -> String {
        ([begin, declarations.header, ""] + rendered.map(\.text) + [end]).joined(separator: "\n")
    }

    /// docs/findings.md's part: per finding, its runs (machine, commit, the command each recorded) and each
    /// figure with what it is computed from.
    package static func detail(
        _ declarations: FindingDeclarations, _ rendered: [Rendered], renderer: inout FindingRenderer
    ) throws -> String {
        var lines = [
            begin, "## The findings at a glance, figure by figure", "",
            "Each finding of README.md as `docs/findings.json` declares it: the runs it rests on, each with the "
                + "command it recorded, and every figure with the cells and statistic it is computed from. "
                + "`persistbench findings --check` computes them again from the committed results.", "",
        ]
        for (finding, item) in zip(declarations.findings, rendered) {
            lines += ["<a id=\"finding-\(item.number)\"></a>", "### \(item.number). \(finding.title)", ""]
            lines += ["| run | machine | commit | command |", "|---|---|---|---|"]
            for run in finding.runs {
                let facts = try provenance(of: run, renderer: &renderer)
                lines.append("| `\(run)` | \(facts.machine) | \(facts.commit) | `\(facts.command)` |")
            }
            lines += ["", "| figure | as published | computed from |", "|---|---|---|"]
            for case .figure(let name, let figure) in item.pieces {
                lines.append("| {\(name)} | \(figure.text) | \(figure.basis) |")
            }
            lines.append("")
        }
        return (lines + [end]).joined(separator: "\n")
    }

    /// A run's machine, its CPU's short name (EPYC, Xeon), commit (saying when its tree was not committed) and
    /// command, from what it recorded.
    static func provenance(of run: String, renderer: inout FindingRenderer) throws -> (
        machine: String, cpu: String, commit: String, command: String
    ) {
        let environment = try renderer.environment(of: run)
        let cpu =
            environment.cpuModel.contains("EPYC")
            ? "AMD EPYC"
            : environment.cpuModel.contains("Xeon")
                ? "Intel Xeon" : environment.cpuModel
        let dirty = environment.gitCommit.hasSuffix("-dirty")
        let commit = String(environment.gitCommit.prefix(7)) + (dirty ? " (uncommitted)" : "")
        return (
            "\(environment.cores)-core \(cpu)", cpu.split(separator: " ").last.map(String.init) ?? cpu, commit,
            command(environment.command)
        )
    }

    /// A recorded command as a reader types it: `persistbench` for the binary's path (after any settings it
    /// records before it, `GLIBC_TUNABLES=…`), without `--out DIR` and `--replace` (where it wrote is not what it
    /// measured).
    static func command(_ recorded: String) -> String {
        var words = recorded.split(separator: " ").map(String.init)
        if let binary = words.firstIndex(where: { !$0.contains("=") }), words[binary].hasSuffix("persistbench") {
            words[binary] = "persistbench"
        }
        var kept: [String] = []
        var skipNext = false
        for word in words {
            if skipNext {
                skipNext = false
                continue
            }
            if word == "--out" {
                skipNext = true
                continue
            }
            if word == "--replace" || word.hasPrefix("--out=") { continue }
            kept.append(word)
        }
        return kept.joined(separator: " ")
    }

    /// The part of `page` between the markers, or nil where it has none.
    package static func part(of page: String) -> Range<String.Index>? {
        guard let start = page.range(of: begin), let stop = page.range(of: end, range: start.upperBound..<page.endIndex)
        else { return nil }
        return start.lowerBound..<stop.upperBound
    }

    /// Where README's published findings differ from their rendering (`section`): each finding whose words differ,
    /// each figure whose published value is not the one its run gives, with both values; an item no declaration
    /// renders, or one published twice; and where nothing of that names it, the first line that differs.
    ///
    /// Empty when they agree.
    package static func differences(published: String, rendered: [Rendered], section: String) -> [String] {
        guard published != section else { return [] }
        var problems: [String] = []
        let (items, numbers) = items(of: published)
        for number in Set(numbers) where numbers.count(where: { $0 == number }) > 1 {
            problems.append("finding \(number): published more than once")
        }
        for number in Set(numbers).subtracting(rendered.map(\.number)).sorted() {
            problems.append("finding \(number): published, and docs/findings.json declares no such finding")
        }
        if numbers != numbers.sorted() { problems.append("the findings are published out of their order") }
        let lines = { (text: String) in text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().first
        }
        if lines(published) != lines(section) { problems.append("the header differs from docs/findings.json's") }
        for finding in rendered {
            guard let text = items[finding.number] else {
                problems.append("finding \(finding.number): not in the published section")
                continue
            }
            if text != finding.text { problems += figureDifferences(text, finding) }
        }
        if problems.isEmpty {
            let difference = firstDifference(published, section)
            problems.append(
                "the section differs from its rendering at its line \(difference.line + 1): "
                    + (difference.published.map { "«\($0)»" } ?? "the end"))
        }
        return problems
    }

    /// The first line at which `published` and `rendered` differ, and each one's line there (nil past its end).
    static func firstDifference(_ published: String, _ rendered: String) -> (
        line: Int, published: String?, rendered: String?, heading: String?
    ) {
        let mine = published.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let theirs = rendered.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var line = 0
        while line < mine.count, line < theirs.count, mine[line] == theirs[line] { line += 1 }
        let heading = theirs[..<min(line, theirs.count)].last { $0.hasPrefix("### ") }
        return (
            line, line < mine.count ? String(mine[line].prefix(80)) : nil,
            line < theirs.count ? String(theirs[line].prefix(80)) : nil, heading.map { String($0.dropFirst(4)) }
        )
    }

    /// One finding's published text against its rendering: each figure published otherwise, with both values, or
    /// where its words first differ.
    private static func figureDifferences(_ text: String, _ finding: Rendered) -> [String] {
        var rest = Substring(text)
        var pending: (name: String, figure: RenderedFigure)?
        var found: [String] = []
        // Words between two figures are one piece: a short one ("." ) must not match inside a figure.
        var pieces: [Rendered.Piece] = []
        for piece in finding.pieces {
            if case .words(let words) = piece, case .words(let before)? = pieces.last {
                pieces[pieces.count - 1] = .words(before + words)
            } else {
                pieces.append(piece)
            }
        }
        for (index, piece) in pieces.enumerated() {
            switch piece {
            case .figure(let name, let figure): pending = (name, figure)
            case .words(let words):
                let last = index == pieces.count - 1
                let match: Range<Substring.Index>?
                if pending == nil {
                    match =
                        rest.hasPrefix(words)
                        ? rest.startIndex..<rest.index(rest.startIndex, offsetBy: words.count) : nil
                } else if last {
                    match =
                        rest.hasSuffix(words) ? rest.index(rest.endIndex, offsetBy: -words.count)..<rest.endIndex : nil
                } else {
                    match = rest.range(of: words)
                }
                guard let match else {
                    found.append(
                        "finding \(finding.number): its words differ from docs/findings.json's at «"
                            + (words.isEmpty ? "the end" : String(words.prefix(60))) + "»")
                    return found
                }
                if let pending, rest[..<match.lowerBound] != pending.figure.text {
                    found.append(
                        "finding \(finding.number), figure {\(pending.name)}: published "
                            + "\(rest[..<match.lowerBound]), its run gives \(pending.figure.text) "
                            + "(\(pending.figure.basis))")
                }
                pending = nil
                rest = rest[match.upperBound...]
            }
        }
        return found.isEmpty ? ["finding \(finding.number): differs from its rendering"] : found
    }

    /// docs/findings.md's part against its rendering: the first line that differs, with the finding it is in.
    package static func detailDifferences(published: String, rendered: String) -> [String] {
        guard published != rendered else { return [] }
        let difference = firstDifference(published, rendered)
        let place = difference.heading.map { "docs/findings.md, finding \($0.prefix(60))" } ?? "docs/findings.md"
        let was = difference.published.map { "«\($0)»" } ?? "the end"
        let now = difference.rendered.map { " (the runs give «\($0)»)" } ?? ""
        return ["\(place): its line \(was) is not what the runs give\(now)"]
    }

    /// The published section's items by number, and every item's number in the order published.
    ///
    /// An item is a line "3. **…** …" and what follows it up to the next item, a blank line or the end marker.
    static func items(of published: String) -> (items: [Int: String], numbers: [Int]) {
        var items: [Int: String] = [:]
        var numbers: [Int] = []
        var current: (Int, [String])?
        func close() {
            if let (number, lines) = current, items[number] == nil { items[number] = lines.joined(separator: "\n") }
            current = nil
        }
        for line in published.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let dot = line.firstIndex(of: "."), let number = Int(line[..<dot]), line[dot...].hasPrefix(". **") {
                close()
                numbers.append(number)
                current = (number, [line])
            } else if line == end || line.isEmpty {
                close()
            } else if current != nil {
                current?.1.append(line)
            }
        }
        close()
        return (items, numbers)
    }
}
