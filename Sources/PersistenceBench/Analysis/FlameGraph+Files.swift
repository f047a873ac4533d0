import Foundation

extension FlameGraph {
    /// Draws the flame graph of every cell of `results` whose folded stacks its run kept in `directory`'s flames/
    /// (a counted run), beside them as .svg; a graph newer than its stacks is left as it is.
    package static func writeGraphs(of results: RunResults, in directory: URL) throws {
        for cell in results.cells {
            guard let operations = cell.metrics?.phase.operations else { continue }
            let id = cell.id
            let stacksFile = FlameFiles.file(of: id, inRunAt: directory)
            let graphFile = FlameFiles.file(of: id, inRunAt: directory, suffix: ".svg")
            guard let stacksDate = modified(stacksFile), (modified(graphFile).map { $0 < stacksDate } ?? true),
                let stacks = FlameFiles.stacks(of: id, inRunAt: directory)
            else { continue }
            let graph = FlameGraph(title: "\(id): instructions counted", stacks: stacks, operations: operations)
            try FileSystem.writeAtomically(Data(graph.svg.utf8), to: graphFile)
        }
    }

    /// For each of `cells`, the differential graph of its current run's stacks against its baseline's, written
    /// beside the current ones (flames/NAME.diff.svg); returns each graph's file, for the cells whose two runs both
    /// kept their stacks.
    ///
    /// `runs` pairs each baseline's directory with the directory its matrix was counted in now.
    package static func writeDifferentials(
        of cells: [CellID], baseline: RunResults, current: RunResults, runs: [Sides<URL>]
    ) throws -> [(cell: CellID, file: URL)] {
        var written: [(cell: CellID, file: URL)] = []
        for id in cells {
            guard
                let pair = runs.first(where: {
                    FileManager.default.fileExists(atPath: FlameFiles.file(of: id, inRunAt: $0.base).path)
                        && FileManager.default.fileExists(atPath: FlameFiles.file(of: id, inRunAt: $0.current).path)
                }),
                let baseStacks = FlameFiles.stacks(of: id, inRunAt: pair.base),
                let currentStacks = FlameFiles.stacks(of: id, inRunAt: pair.current),
                let baseOperations = operations(of: id, in: baseline),
                let currentOperations = operations(of: id, in: current)
            else { continue }
            let graph = FlameGraph(
                title: "\(id): instructions, this build against the baseline", stacks: currentStacks,
                operations: currentOperations, base: (baseStacks, baseOperations))
            let file = FlameFiles.file(of: id, inRunAt: pair.current, suffix: ".diff.svg")
            try FileSystem.makeDirectory(file.deletingLastPathComponent())
            try FileSystem.writeAtomically(Data(graph.svg.utf8), to: file)
            written.append((id, file))
        }
        return written
    }

    private static func operations(of id: CellID, in results: RunResults) -> Int? {
        results.cells.cell(id)?.metrics?.phase.operations
    }

    private static func modified(_ file: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date
    }
}
