import Foundation
import PersistenceBench

/// How each store's cost grows with the data set (`Growth`), for a run with two scales or more.
extension MarkdownReport {
    static func growthSection(_ results: RunResults) -> [String] {
        let fits = Growth.fits(results)
        guard !fits.isEmpty else { return [] }
        var out = [
            "## How cost grows with N", "",
            "Per workload, each store's time per operation fitted as c·N^b through the median of every scale one "
                + "machine measured (least squares on the logarithms; a fit never spans machines; ± the standard "
                + "deviation of b over \(formatWhole(PowerLaw.bootstrapRounds)) resamples of the scales with "
                + "replacement, from 3 scales or more), what b reads as (constant: "
                + "|b| < \(exponent(Growth.flatExponent)); falling: a fixed cost spread over more records; "
                + "logarithmic-looking: below \(exponent(Growth.steepExponent)), as log N from 10k to 10M gives "
                + "b ≈ 0.08; growing: b ≥ \(exponent(Growth.steepExponent))), and where the median cost grew faster "
                + "than N^\(exponent(Growth.steepExponent)) from one measured scale to the next. The charts "
                + "`charts/time-<workload>.svg` draw the points, each repetition's spread as a bar.",
            "",
        ]
        var workloads: [String] = []
        for fit in fits where !workloads.contains(fit.workload) { workloads.append(fit.workload) }
        for workload in workloads {
            out += [
                "### \(workload)", "",
                "| store | b | reads as | time/op at the smallest → largest scale | faster than N^0.2 between |",
                "|---|--:|---|---|---|",
            ]
            for fit in fits where fit.workload == workload {
                guard let first = fit.points.first, let last = fit.points.last else { continue }
                let error = fit.spread.map { " ± \(exponent($0))" } ?? ""
                let steep = fit.steepSteps.map {
                    "\($0.from)–\($0.to) (N^\(exponent($0.exponent))\($0.acrossMachines ? ", across machines" : ""))"
                }
                let main = fit.acrossMachines ? " (\(fit.fits[0].machine ?? "?"))" : ""
                out.append(
                    "| `\(fit.store)` | \(exponent(fit.exponent))\(error)\(main) | \(fit.reading.rawValue) | "
                        + "\(Quantity.formatTime(first.median)) at \(first.scale) → "
                        + "\(Quantity.formatTime(last.median)) at \(last.scale) | "
                        + (steep.isEmpty ? "–" : steep.joined(separator: ", ")) + " |")
            }
            out.append("")
            out += machinesLines(fits.filter { $0.workload == workload }, results.machines)
        }
        return out
    }

    /// For a run whose workload's scales ran on different machines (merged from shards, or resumed elsewhere): which scales ran where, with each
    /// machine's probes, and each store's b fitted to one machine's scales alone.
    ///
    /// Empty where one machine measured them all.
    private static func machinesLines(_ fits: [Growth], _ machines: [Machine]) -> [String] {
        let points = fits.flatMap(\.points)
        let names = orderedUnique(points.sorted { $0.scale < $1.scale }.compactMap(\.machine))
        guard names.count > 1 else { return [] }
        let parts = names.map { name in
            let machine = machines.first { $0.name == name }
            let probes = [
                machine?.cpuProbeSeconds.map { "CPU probe \(Quantity.formatTime($0))" },
                machine?.syncProbeSeconds.map { "fdatasync \(Quantity.formatTime($0))" },
            ].compactMap { $0 }
            let scales = Set(points.filter { $0.machine == name }.map(\.scale)).sorted()
            return scales.map(\.description).joined(separator: ", ") + " on \(name)"
                + (probes.isEmpty ? "" : " (" + probes.joined(separator: ", ") + ")")
        }
        let alone = fits.map { fit in
            "- `\(fit.store)`: "
                + fit.fits.map {
                    "\(exponent($0.exponent))\($0.spread.map { " ± \(exponent($0))" } ?? "") on \($0.machine ?? "?") "
                        + "(\($0.scales.map(\.description).joined(separator: ", ")))"
                }.joined(separator: "; ")
        }
        let line: String =
            "Measured on \(names.count) machines: " + parts.joined(separator: "; ")
            + ". b is fitted to one machine's scales alone (the table gives the fit of the machine that measured "
            + "the most); the steps between scales of different machines mix the machines' speeds with the "
            + "stores' growth (see Machines). Each machine's fit, where it measured two scales or more:"
        return [line, ""] + alone + [""]
    }

    private static func exponent(_ value: Double) -> String { String(format: "%.2f", value) }
}
