import Foundation

/// How one store's time per operation in one workload grows with the data set's size N: a power law t = c·N^b
/// fitted by least squares to log t against log N over every finished repetition at every measured scale, with
/// the standard error of b, and the local exponent between each two adjacent scales (their medians).
package struct Growth: Sendable {
    package struct Point: Sendable {
        package var scale: Scale
        /// Seconds per operation: the repetitions' median, fastest and slowest.
        package var median: Double
        package var low: Double
        package var high: Double
        /// The machine that measured this scale (`Machine.name`: a (workload, scale) group runs whole on one);
        /// nil where the fit was given no names.
        package var machine: String?
    }

    /// The local exponent log(t₂/t₁) / log(N₂/N₁) between two adjacent measured scales.
    package struct Step: Sendable {
        package var from: Scale
        package var to: Scale
        package var exponent: Double
        /// True when the two scales were measured on different machines: the step carries their difference in
        /// speed as well as the store's growth (`Machine`).
        package var acrossMachines: Bool
    }

    /// What b says, over the decades a sweep spans: a cost that does not move with N (|b| < 0.05), one that falls
    /// (a fixed cost spread over more records), one that grows like a logarithm (log N grows by a factor 1.75 from
    /// 10k to 10M: b ≈ 0.08) or a little more, and one that grows faster than N^0.2.
    package enum Reading: String, Sendable {
        case constant
        case falling
        case logarithmic = "logarithmic-looking"
        case growing
    }

    package var store: String
    package var workload: String
    package var points: [Point]
    /// b and c of t = c·N^b.
    package var exponent: Double
    package var coefficient: Double
    /// The standard error of b; nil when the fit had no spare degree of freedom (two values in all).
    package var standardError: Double?
    package var steps: [Step]
    /// Where the scales ran on different machines (a merged run, or one resumed elsewhere), b fitted to each machine's scales alone (where it
    /// measured two or more), in the order of their smallest scale; empty where one machine measured them all.
    package var byMachine: [(machine: String, exponent: Double)] = []

    /// Above this a step's exponent is flagged, and a fit's exponent reads as growing.
    package static let steepExponent = 0.2
    /// Within this of 0 a fit's exponent reads as constant.
    package static let flatExponent = 0.05

    package var reading: Reading {
        exponent >= Self.steepExponent
            ? .growing
            : exponent >= Self.flatExponent ? .logarithmic : exponent <= -Self.flatExponent ? .falling : .constant
    }

    /// The steps whose cost grew faster than N^0.2.
    package var steepSteps: [Step] { steps.filter { $0.exponent > Self.steepExponent } }

    /// The fit's seconds per operation at `records`.
    package func predicted(at records: Int) -> Double { coefficient * pow(Double(records), exponent) }

    /// A fit for every (store, workload) of `results` with finished cells at two scales or more; workloads in the
    /// run's order, stores in the report's.
    package static func fits(_ results: RunResults) -> [Growth] {
        var workloads: [String] = []
        for cell in results.cells where !workloads.contains(cell.workload) { workloads.append(cell.workload) }
        return workloads.flatMap { workload in
            results.stores.compactMap { store in
                fit(
                    store: store, workload: workload,
                    cells: results.cells.filter { $0.store == store && $0.workload == workload },
                    machine: results.machineName(of:))
            }
        }
    }

    /// The fit of one (store, workload)'s cells, or nil with fewer than two scales finished; `machine` names the
    /// machine that measured a cell (`RunResults.machineName(of:)`).
    package static func fit(
        store: String, workload: String, cells: [CellResult], machine: (CellResult) -> String?
    ) -> Growth? {
        var samples: [(x: Double, y: Double, machine: String?)] = []
        var points: [Point] = []
        for scale in Set(cells.map(\.scale)).sorted() {
            let finished = cells.filter { $0.scale == scale && $0.status == .ok }
            let times = finished.compactMap(\.metrics).filter { $0.operations > 0 && $0.timedSeconds > 0 }
                .map(\.timePerOperation)
            guard let middle = median(times), let low = times.min(), let high = times.max() else { continue }
            points.append(
                Point(scale: scale, median: middle, low: low, high: high, machine: finished.first.flatMap(machine)))
            samples += times.map { (Double(scale.records), $0, points.last?.machine) }
        }
        guard points.count >= 2, let law = PowerLaw(samples.map { ($0.x, $0.y) }) else { return nil }
        let steps = zip(points, points.dropFirst()).map { one, next in
            Step(
                from: one.scale, to: next.scale,
                exponent: log(next.median / one.median) / log(Double(next.scale.records) / Double(one.scale.records)),
                acrossMachines: one.machine != next.machine)
        }
        var growth = Growth(
            store: store, workload: workload, points: points, exponent: law.exponent, coefficient: law.coefficient,
            standardError: law.standardError, steps: steps)
        let machines = orderedUnique(points.compactMap(\.machine))
        if machines.count > 1 {
            growth.byMachine = machines.compactMap { name in
                PowerLaw(samples.filter { $0.machine == name }.map { ($0.x, $0.y) }).map { (name, $0.exponent) }
            }
        }
        return growth
    }
}

/// y = c·x^b fitted by least squares to log y against log x.
package struct PowerLaw: Sendable {
    package var exponent: Double
    package var coefficient: Double
    /// The standard error of the exponent; nil with two samples (an exact fit).
    package var standardError: Double?

    /// Nil unless the samples (x, y > 0) hold two x values or more.
    package init?(_ samples: [(x: Double, y: Double)]) {
        let logs = samples.filter { $0.x > 0 && $0.y > 0 }.map { (x: log($0.x), y: log($0.y)) }
        let count = Double(logs.count)
        guard Set(logs.map(\.x)).count >= 2 else { return nil }
        let meanX = logs.map(\.x).reduce(0, +) / count
        let meanY = logs.map(\.y).reduce(0, +) / count
        let sxx = logs.map { ($0.x - meanX) * ($0.x - meanX) }.reduce(0, +)
        let sxy = logs.map { ($0.x - meanX) * ($0.y - meanY) }.reduce(0, +)
        exponent = sxy / sxx
        let intercept = meanY - exponent * meanX
        coefficient = exp(intercept)
        let squares = logs.map { ($0.y - (intercept + exponent * $0.x)) * ($0.y - (intercept + exponent * $0.x)) }
        standardError = logs.count > 2 ? (squares.reduce(0, +) / (count - 2) / sxx).squareRoot() : nil
    }

    package func callAsFunction(_ x: Double) -> Double { coefficient * pow(x, exponent) }
}
