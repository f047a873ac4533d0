import ArgumentParser
import Foundation
import PersistenceBench
import Reports

struct Findings: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render README's findings from docs/findings.json and the committed runs, or check them.",
        discussion: """
            Each finding in docs/findings.json names its runs, its sentence and each figure as a statistic of \
            named cells. Without a flag, prints README's findings section; --write puts it in README.md and the \
            figure-by-figure part in docs/findings.md, between their markers; --check writes nothing and exits 1 \
            naming each finding and figure the published text states otherwise, with both values.
            """)

    @Option(help: ArgumentHelp("The repository's root.", valueName: "DIR"))
    var root = "."

    @Flag(help: "Write nothing: exit 1 where README.md or docs/findings.md differs from what the runs give.")
    var check = false

    @Flag(help: "Rewrite the findings parts of README.md and docs/findings.md.")
    var write = false

    func validate() throws {
        guard !(check && write) else { throw ValidationError("--check and --write: choose one") }
    }

    private var rootURL: URL { URL(fileURLWithPath: root) }
    private var readmeURL: URL { rootURL.appendingPathComponent("README.md") }
    private var detailURL: URL { rootURL.appendingPathComponent("docs/findings.md") }

    func run() throws {
        let declarationsURL = rootURL.appendingPathComponent("docs/findings.json")
        let declarations: FindingDeclarations
        do {
            declarations = try FindingDeclarations.decode(Data(contentsOf: declarationsURL))
        } catch let error as DecodingError {
            throw BenchError("\(declarationsURL.path): \(RunResults.describe(error))")
        }
        var renderer = FindingRenderer(root: rootURL)
        let rendered = try FindingPages.render(declarations, renderer: &renderer)
        let readme = FindingPages.readme(declarations, rendered)
        let detail = try FindingPages.detail(declarations, rendered, renderer: &renderer)
        guard check || write else { return print(readme) }
        var problems: [String] = []
        var pages: [(URL, String)] = []
        for (url, part) in [(readmeURL, readme), (detailURL, detail)] {
            // Line ends as git may check them out on another system: compared as "\n".
            let page = try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "\r\n", with: "\n")
            guard let range = FindingPages.part(of: page) else {
                throw BenchError("\(url.path) has no findings part (between «\(FindingPages.begin)» and its end)")
            }
            pages.append((url, page.replacingCharacters(in: range, with: part)))
            guard check, page[range] != part else { continue }
            if url == readmeURL {
                problems += FindingPages.differences(
                    published: String(page[range]), rendered: rendered, section: part)
            } else {
                problems += FindingPages.detailDifferences(published: String(page[range]), rendered: part)
            }
        }
        if write {
            for (url, page) in pages { try FileSystem.writeAtomically(Data(page.utf8), to: url) }
            return print("Wrote the findings parts of README.md and docs/findings.md (\(rendered.count) findings)")
        }
        guard problems.isEmpty else {
            problems.forEach { print($0) }
            print("Re-render with `persistbench findings --write`, or change docs/findings.json")
            throw ExitCode(1)
        }
        let figures = declarations.findings.map(\.figures.count).reduce(0, +)
        print("Findings current: \(rendered.count) findings, \(figures) figures, as their runs give them")
    }
}
