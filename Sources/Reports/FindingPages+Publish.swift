import Foundation
import PersistenceBench

extension FindingPages {
    /// What `findings` does with the pages its runs give: print README's section, check both pages, or write them.
    package enum Action: Sendable { case print, check, write }

    /// README's findings section and docs/findings.md's part, rendered from `root`'s docs/findings.json and the runs
    /// it names, then printed, checked against both pages or written into them.
    ///
    /// Returns the lines to print and whether the pages are current (always true but for `check`).
    package static func publish(root: URL, _ action: Action) throws -> (lines: [String], current: Bool) {
        let declarationsURL = root.appendingPathComponent("docs/findings.json")
        let declarations: FindingDeclarations
        do {
            declarations = try FindingDeclarations.decode(Data(contentsOf: declarationsURL))
        } catch let error as DecodingError {
            throw BenchError("\(declarationsURL.path): \(RunResults.describe(error))")
        }
        var renderer = FindingRenderer(root: root)
        let rendered = try render(declarations, renderer: &renderer)
        let readmePart = readme(declarations, rendered)
        let detailPart = try detail(declarations, rendered, renderer: &renderer)
        guard action != .print else { return ([readmePart], true) }
        let readmeURL = root.appendingPathComponent("README.md")
        var problems: [String] = []
        var pages: [(URL, String)] = []
        for (url, rendering) in [
            (readmeURL, readmePart), (root.appendingPathComponent("docs/findings.md"), detailPart),
        ] {
            // Line ends as git may check them out on another system: compared as "\n".
            let page = try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "\r\n", with: "\n")
            guard let range = part(of: page) else {
                throw BenchError("\(url.path) has no findings part (between «\(begin)» and its end)")
            }
            pages.append((url, page.replacingCharacters(in: range, with: rendering)))
            guard action == .check, page[range] != rendering else { continue }
            problems +=
                url == readmeURL
                ? differences(published: String(page[range]), rendered: rendered, section: rendering)
                : detailDifferences(published: String(page[range]), rendered: rendering)
        }
        if action == .write {
            for (url, page) in pages { try FileSystem.writeAtomically(Data(page.utf8), to: url) }
            return (["Wrote the findings parts of README.md and docs/findings.md (\(rendered.count) findings)"], true)
        }
        guard problems.isEmpty else {
            return (problems + ["Re-render with `persistbench findings --write`, or change docs/findings.json"], false)
        }
        let figures = declarations.findings.map(\.figures.count).reduce(0, +)
        return (["Findings current: \(rendered.count) findings, \(figures) figures, as their runs give them"], true)
    }
}
