import PersistenceBench

/// A workload's own figures (`WorkloadFigures`) that draw a table under the workload's section of report.md: one
/// conformance, in the figures' own `MarkdownReport+<Figures>.swift`; the report names no workload for it.
protocol FiguresTable {
    /// The table of one workload's `cells`; `results` holds the run's other cells, for a table that sets them beside.
    static func table(_ cells: [CellResult], in results: RunResults, stores: [String], scales: [Scale]) -> [String]
}

extension MarkdownReport {
    /// The table of each type of figures among `cells` that draws one, in the order the cells first hold them.
    static func figuresTables(
        _ cells: [CellResult], in results: RunResults, stores: [String], scales: [Scale]
    ) -> [String] {
        var drawn: Set<ObjectIdentifier> = []
        var out: [String] = []
        for figures in cells.compactMap(\.metrics?.figures) {
            guard let kind = type(of: figures.payload) as? any FiguresTable.Type,
                drawn.insert(ObjectIdentifier(kind)).inserted
            else { continue }
            out += kind.table(cells, in: results, stores: stores, scales: scales)
        }
        return out
    }
}
