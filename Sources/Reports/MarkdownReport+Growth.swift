import Foundation
import PersistenceBench

/// How each store's cost grows with the data set (`Growth`), for a run with two scales or more.
extension MarkdownReport {
    static func growthSection(_ results: RunResults) -> [String] {
        let fits = Growth.fits(results)
        guard !fits.isEmpty else { return [] }
        var out = [
            "## How cost grows with N", "",
            "Per workload, each store's time per operation fitted as c·N^b to every finished repetition at every "
                + "scale (least squares on the logarithms; ± the standard error of b), what b reads as (constant: "
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
                let error = fit.standardError.map { " ± \(exponent($0))" } ?? ""
                let steep = fit.steepSteps.map { "\($0.from)–\($0.to) (N^\(exponent($0.exponent)))" }
                out.append(
                    "| `\(fit.store)` | \(exponent(fit.exponent))\(error) | \(fit.reading.rawValue) | "
                        + "\(Quantity.formatTime(first.median)) at \(first.scale) → "
                        + "\(Quantity.formatTime(last.median)) at \(last.scale) | "
                        + (steep.isEmpty ? "–" : steep.joined(separator: ", ")) + " |")
            }
            out.append("")
        }
        return out
    }

    private static func exponent(_ value: Double) -> String { String(format: "%.2f", value) }
}
