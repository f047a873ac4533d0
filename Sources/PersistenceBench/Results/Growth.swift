import Foundation

/// How one store's time per operation in one workload grows with the data set's size N: a power law t = c·N^b
/// fitted by least squares to log t against log N through the median of each measured scale, one machine's scales
/// at a time (a fit never spans machines: hosts of one class differ 1.5× in CPU and 3× in fdatasync), with the
/// spread of b over a bootstrap of the scales (`PowerLaw.bootstrapRounds` resamples of the scales with replacement: the
/// repetitions of one scale are not independent samples of the law), and the local exponent between each two
/// adjacent scales.
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
    /// One machine's fit: b and c of t = c·N^b through its scales' medians, and b's bootstrap spread.
    package struct Fit: Sendable {
        /// `Machine.name`; nil where the fit was given no names.
        package var machine: String?
        package var scales: [Scale]
        package var exponent: Double
        package var coefficient: Double
        /// The standard deviation of b over the bootstrap of the scales; nil from fewer than 3 scales.
        package var spread: Double?
    }

    /// b, c and b's spread of the fit of the machine that measured the most scales (the first of them on a tie):
    /// what the reading, the prediction and the charts use.
    package var exponent: Double { fits[0].exponent }
    package var coefficient: Double { fits[0].coefficient }
    package var spread: Double? { fits[0].spread }
    package var steps: [Step]
    /// Every machine's fit that measured two scales or more, the main one (`exponent`) first: one entry where one
    /// machine measured them all.
    package var fits: [Fit]
    /// Whether the scales ran on more than one machine (a merged run, or one resumed elsewhere).
    package var acrossMachines: Bool

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
                    cells: results.cells.cells(of: StoreWorkload(store: store, workload: workload)),
                    machine: results.machineName(of:))
            }
        }
    }

    /// The fit of one (store, workload)'s cells, or nil with fewer than two scales finished; `machine` names the
    /// machine that measured a cell (`RunResults.machineName(of:)`).
    package static func fit(
        store: String, workload: String, cells: [CellResult], machine: (CellResult) -> String?
    ) -> Growth? {
        var points: [Point] = []
        for scale in Set(cells.map(\.scale)).sorted() {
            let finished = cells.filter { $0.scale == scale && $0.status == .ok }
            let times = finished.compactMap(\.metrics).filter { $0.phase.operations > 0 && $0.phase.timedSeconds > 0 }
                .map(\.phase.timePerOperation)
            guard let middle = median(times), let low = times.min(), let high = times.max() else { continue }
            points.append(
                Point(scale: scale, median: middle, low: low, high: high, machine: finished.first.flatMap(machine)))
        }
        let machines = orderedUnique(points.map { $0.machine ?? "" })
        let fits = machines.compactMap { name -> Fit? in
            let own = points.filter { ($0.machine ?? "") == name }
            guard let law = PowerLaw(own.map { (Double($0.scale.records), $0.median) }) else { return nil }
            return Fit(
                machine: name.isEmpty ? nil : name, scales: own.map(\.scale), exponent: law.exponent,
                coefficient: law.coefficient,
                spread: PowerLaw.bootstrapSpread(own.map { (Double($0.scale.records), $0.median) }))
        }.sorted { $0.scales.count > $1.scales.count }
        guard !fits.isEmpty else { return nil }
        let steps = zip(points, points.dropFirst()).map { one, next in
            Step(
                from: one.scale, to: next.scale,
                exponent: log(next.median / one.median) / log(Double(next.scale.records) / Double(one.scale.records)),
                acrossMachines: one.machine != next.machine)
        }
        return Growth(
            store: store, workload: workload, points: points, steps: steps, fits: fits,
            acrossMachines: machines.count > 1)
    }
}

/// y = c·x^b fitted by least squares to log y against log x.
package struct PowerLaw: Sendable {
    package var exponent: Double
    package var coefficient: Double

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
    }

    package func callAsFunction(_ x: Double) -> Double { coefficient * pow(x, exponent) }
}

extension PowerLaw {
    /// Resamples behind `bootstrapSpread`.
    package static let bootstrapRounds = 1_000

    /// The standard deviation of b fitted to `bootstrapRounds` resamples (with replacement, seeded) of `samples`,
    /// one per scale, leaving out resamples of a single x; nil from fewer than 3 samples, where every resample is
    /// the fit itself or no fit.
    package static func bootstrapSpread(_ samples: [(x: Double, y: Double)]) -> Double? {
        guard samples.count >= 3 else { return nil }
        var rng = SplitMix64(seed: 1, stream: .bootstrap, index: 0)
        var exponents: [Double] = []
        for _ in 0..<bootstrapRounds {
            let resample = (0..<samples.count).map { _ in samples[Int(rng.below(UInt64(samples.count)))] }
            if let law = PowerLaw(resample) { exponents.append(law.exponent) }
        }
        guard exponents.count > 1 else { return nil }
        let mean = exponents.reduce(0, +) / Double(exponents.count)
        let variance = exponents.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(exponents.count - 1)
        return variance.squareRoot()
    }
}
