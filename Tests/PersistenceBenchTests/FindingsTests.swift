import Foundation
import Testing

@testable import PersistenceBench
@testable import Reports

/// README's findings and the committed runs' reports, as `make check-findings` holds them to their runs.
@Suite struct FindingsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A repository root of its own: copies of the pages and declarations, the committed runs linked.
    static func copy() throws -> TemporaryDirectory {
        let root = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            at: root.url.appendingPathComponent("docs"), withIntermediateDirectories: true)
        for page in ["README.md", "docs/findings.md", "docs/findings.json"] {
            try FileManager.default.copyItem(
                at: repository.appendingPathComponent(page), to: root.url.appendingPathComponent(page))
        }
        try FileManager.default.createSymbolicLink(
            at: root.url.appendingPathComponent("results"),
            withDestinationURL: repository.appendingPathComponent("results"))
        return root
    }

    @Test(.tags(.endToEnd)) func theCommittedFindingsAreWhatTheirRunsGive() throws {
        let run = try runTool(["findings", "--check", "--root", Self.repository.path])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("13 findings"), "\(run.output)")
    }

    @Test(.tags(.endToEnd)) func aFigureTypedOverIsNamedWithBothValues() throws {
        let root = try Self.copy()
        let readme = root.url.appendingPathComponent("README.md")
        let page = try String(contentsOf: readme, encoding: .utf8)
        let published = try #require(page.range(of: "`grdb` 19.9× (18.9–29.1)"))
        try page.replacingCharacters(in: published, with: "`grdb` 18.0× (18.9–29.1)").write(
            to: readme, atomically: true, encoding: .utf8)
        let run = try runTool(["findings", "--check", "--root", root.url.path])
        #expect(run.status == 1, "\(run.output)")
        #expect(
            run.output.contains("finding 3, figure {g}: published 18.0× (18.9–29.1), its run gives 19.9× (18.9–29.1)"),
            "\(run.output)")
        // Words changed are named too, and --write puts the rendering back.
        // Only that figure is named: the words around it still match.
        #expect(!run.output.contains("{gs}") && !run.output.contains("words differ"), "\(run.output)")
        // Words changed, findings moved, added or repeated, text slipped between them: each is named.
        let first = try #require(page.range(of: "1. **"))
        let item1 = String(page[first.lowerBound...].prefix { $0 != "\n" })
        let edits: [(String, String)] = [
            (
                page.replacingOccurrences(of: "compiling is most of the cost", with: "compiling is all of it"),
                "finding 3: its words differ"
            ),
            (
                page.replacingOccurrences(
                    of: FindingPages.end, with: "14. **SQLite loses**: always.\n" + FindingPages.end),
                "finding 14: published, and docs/findings.json declares no such finding"
            ),
            (
                page.replacingCharacters(
                    in: first, with: item1.replacingOccurrences(of: "3.82M", with: "9.99M") + "\n1. **"),
                "finding 1: published more than once"
            ),
            (
                page.replacingOccurrences(of: "\n2. **", with: "\n\nIn our view sqlite is slow.\n\n2. **"),
                "the section differs from its rendering"
            ),
            (
                page.replacingOccurrences(
                    of: FindingPages.begin + "\n", with: FindingPages.begin + "\nIllustrative only. "),
                "the header differs"
            ),
        ]
        for (edited, message) in edits {
            try edited.write(to: readme, atomically: true, encoding: .utf8)
            let check = try runTool(["findings", "--check", "--root", root.url.path])
            #expect(check.status == 1 && check.output.contains(message), "\(message): \(check.output)")
        }
        #expect(try runTool(["findings", "--write", "--root", root.url.path]).status == 0)
        #expect(try String(contentsOf: readme, encoding: .utf8) == page)
    }

    @Test(.tags(.endToEnd)) func aDeclarationWithAnUnknownKeyOrAMissingCountIsRefused() throws {
        let root = try Self.copy()
        let declarations = root.url.appendingPathComponent("docs/findings.json")
        let original = try String(contentsOf: declarations, encoding: .utf8)
        for (edit, message) in [
            (original.replacingOccurrences(of: "\"operation\"", with: "\"operaton\""), "unknown key(s): 'operaton'"),
            (
                original.replacingOccurrences(of: "\"field\": \"broken\"", with: "\"field\": \"brokenStates\""),
                "have no count 'brokenStates'"
            ),
        ] {
            #expect(edit != original)
            try edit.write(to: declarations, atomically: true, encoding: .utf8)
            let run = try runTool(["findings", "--root", root.url.path])
            #expect(run.status != 0 && run.output.contains(message), "\(run.output)")
            #expect(!run.output.contains("Fatal error"))
        }
    }

    @Test func aFigureStatesItsSpreadAndNeverAPercentileOfTooFewSamples() throws {
        let root = try Self.copy()
        var renderer = FindingRenderer(root: root.url)
        func finding(_ figure: FigureDeclaration) -> Finding {
            Finding(
                title: "t", runs: ["results/2026-11-24-strategies-1M"], link: "l", text: "{f}", figures: ["f": figure])
        }
        var open = FigureDeclaration(kind: .latency, store: "json", workload: "open", scale: "1M", percentile: "p99")
        // An open is timed twice a repetition: its p99 is a max, and the figure refuses to call it a p99.
        #expect(throws: BenchError.self) { try renderer.render(open, of: finding(open)) }
        open.percentile = "max"
        let slowest = try renderer.render(open, of: finding(open))
        #expect(slowest.text.contains("–") && slowest.basis.contains("n = 2"), "\(slowest)")
        // A ratio pairs the repetitions: one that only one store finished has no range to give.
        let ratio = FigureDeclaration(kind: .ratio, store: "json", over: "sqlite", workload: "open", scale: "1M")
        #expect(try renderer.render(ratio, of: finding(ratio)).text.hasSuffix(")"))
        let unfinished = FigureDeclaration(kind: .ops, store: "json", workload: "insert-each", scale: "1M")
        #expect(throws: BenchError.self) { try renderer.render(unfinished, of: finding(unfinished)) }
    }

    @Test(.tags(.endToEnd)) func aCommittedReportThisBuildRendersOtherwiseIsNamed() throws {
        let directory = try TemporaryDirectory()
        let run = directory.url.appendingPathComponent("run")
        try FileManager.default.copyItem(
            at: Self.repository.appendingPathComponent("results/2026-11-22-orm-1M"), to: run)
        #expect(try runTool(["report", "--check", run.path]).status == 0)
        let report = run.appendingPathComponent("report.md")
        try (String(contentsOf: report, encoding: .utf8) + "\nedited\n").write(
            to: report, atomically: true, encoding: .utf8)
        try Data("<svg/>".utf8).write(to: run.appendingPathComponent("charts/old.svg"))
        let stale = try runTool(["report", "--check", run.path])
        #expect(stale.status == 1, "\(stale.output)")
        #expect(stale.output.contains("report.md, charts/old.svg (no longer drawn)"), "\(stale.output)")
        // Re-rendering puts the report back and deletes nothing: the chart it no longer draws is named.
        let again = try runTool(["report", run.path, "--format", "md"])
        #expect(again.status == 0 && again.output.contains("no longer draws charts/old.svg"), "\(again.output)")
        #expect(FileManager.default.fileExists(atPath: run.appendingPathComponent("charts/old.svg").path))
    }
}
