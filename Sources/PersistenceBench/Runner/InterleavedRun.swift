import Foundation

/// Two builds of the tool (a base revision's and this one's) timed on this machine, cell by cell, in turn: for each
/// (scale, workload, store) every repetition of both before the next cell, in the order `order(repetitions:first:)`
/// gives (base, current; current, base; … from `first`). A drift in the machine's speed then touches both builds alike, and
/// neither always runs first. Each build loads its own fixtures (made by the same generator from the same seed),
/// so that a change of a store's file format is measured, not misread. A loop of steps (`TimeBox`) does, in
/// every run of a cell, the count the first run did in its time box: both builds do the same operations.
package final class InterleavedRun {
    package enum Side: String, Sendable, CaseIterable {
        case base, current
    }

    /// One value for each side.
    package struct Sides<Value> {
        package var base: Value
        package var current: Value

        package init(base: Value, current: Value) {
            self.base = base
            self.current = current
        }

        package init(_ value: (Side) throws -> Value) rethrows {
            self.init(base: try value(.base), current: try value(.current))
        }

        package subscript(side: Side) -> Value {
            get { side == .base ? base : current }
            set { if side == .base { base = newValue } else { current = newValue } }
        }
    }

    /// The workloads `check --base` times unless told otherwise: the CRUD workloads a store's changes touch, one
    /// of each kind of question (a lookup, a scan, a count, a page) and of each kind of write (bulk, durable one
    /// by one, update, delete, a write then a read).
    package static let defaultWorkloads = [
        "insert", "insert-each", "get", "scan", "count-where", "page", "update", "delete", "write-then-page",
    ]

    private let configuration: RunConfiguration
    private let stores: [StoreKind]
    private let workloads: [any Workload]
    private let launchers: Sides<CellLauncher>
    private let first: Side
    private let observer: any RunObserver
    private let save: (Side, RunResults) throws -> Void
    private var results: Sides<RunResults>
    private let workDirectory: URL

    /// - Parameters:
    ///   - executables: each side's tool; its children run its hidden `_child` command, so both sides must speak the
    ///     same `ChildRequest` (a base from before that protocol cannot).
    ///   - first: the side that runs first in odd repetitions.
    ///   - save: called with a side's results after each of its cells and at the end.
    package init(
        configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload],
        environment: RunEnvironment, executables: Sides<String>, first: Side = .base, outputDirectory: URL,
        observer: any RunObserver, save: @escaping (Side, RunResults) throws -> Void
    ) throws {
        self.configuration = configuration
        self.first = first
        self.stores = stores
        self.workloads = workloads
        self.observer = observer
        self.save = save
        workDirectory = outputDirectory.appendingPathComponent("work")
        let workDirectory = workDirectory
        launchers = try Sides { side in
            try CellLauncher(
                executable: executables[side], configuration: configuration,
                workDirectory: workDirectory.appendingPathComponent(side.rawValue), observer: observer)
        }
        results = Sides { _ in RunResults(environment: environment, configuration: configuration, startedAt: Date()) }
    }

    /// The sides in each repetition's turn: `first` first in odd repetitions, the other in even ones
    /// (A B, B A, A B, …), so that over the cell each runs first, and right after the other, as often.
    package static func order(repetitions: Int, first: Side = .base) -> [[Side]] {
        let pair: [Side] = first == .base ? [.base, .current] : [.current, .base]
        return (1...repetitions).map { $0 % 2 == 1 ? pair : pair.reversed() }
    }

    /// Runs every cell of both sides and returns their results (also passed to `save`).
    package func run() throws -> Sides<RunResults> {
        try FileSystem.remove(workDirectory)
        let cells = configuration.scales.flatMap { scale in
            workloads.flatMap { workload in stores.map { (store: $0, workload: workload, scale: scale) } }
        }
        let total = cells.count * configuration.repetitions * Side.allCases.count
        var index = 0
        for (offset, cell) in cells.enumerated() {
            // The first run of a loop of steps sets the count every later run of the cell does, without a clock.
            var box = TimeBox(seconds: configuration.timeBoxSeconds)
            for (repetition, turn) in Self.order(repetitions: configuration.repetitions, first: first).enumerated() {
                for side in turn {
                    index += 1
                    let planned = PlannedCell(
                        store: cell.store, workload: cell.workload, scale: cell.scale, repetition: repetition + 1)
                    let result = try measure(planned, side: side, box: box, index: index, total: total)
                    if box.seconds != nil, let steps = result.metrics?.steps {
                        box = TimeBox(seconds: nil, stepLimit: steps)
                    }
                    results[side].cells.append(result)
                    try save(side, results[side])
                    observer.cellFinished(result, index: index, total: total)
                }
            }
            if offset + 1 == cells.count || cells[offset + 1].scale != cell.scale {
                for side in Side.allCases { try launchers[side].removeFixtures() }
            }
        }
        for side in Side.allCases {
            results[side].finishedAt = Date()
            try save(side, results[side])
        }
        try FileSystem.remove(workDirectory)
        return results
    }

    private func measure(_ cell: PlannedCell, side: Side, box: TimeBox, index: Int, total: Int) throws -> CellResult {
        if let notApplicable = cell.notApplicable { return notApplicable }
        return try launchers[side].measure(cell, box: box) {
            observer.cellStarted(cell, index: index, total: total)
        }.result
    }
}
