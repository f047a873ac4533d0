import Foundation

extension PhaseFigures {
    /// Seconds per timed operation.
    package var timePerOperation: Double { operations > 0 ? timedSeconds / Double(operations) : timedSeconds }
}

/// The median (mean of the two middle values for an even count), or nil for no values.
package func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// `values` without repeats, each kept where it first occurs.
package func orderedUnique<T: Hashable>(_ values: [T]) -> [T] {
    var seen = Set<T>()
    return values.filter { seen.insert($0).inserted }
}

/// The Mann–Whitney U test, one-sided: the probability, were both samples drawn from one distribution, of a U as
/// large as `later`'s over `earlier` (the pairs in which `later`'s value is the larger, a tie counting half).
///
/// Small when `later` is shifted up. Exact (every ordering of the pooled samples equally likely) up to 20 values a
/// side; the normal approximation with a continuity correction beyond.
func mannWhitneyUpperP(_ earlier: [Double], _ later: [Double]) -> Double {
    let m = earlier.count
    let n = later.count
    guard m > 0, n > 0 else { return 1 }
    var u = 0.0
    for value in later {
        for other in earlier { u += value > other ? 1 : value == other ? 0.5 : 0 }
    }
    if m <= 20 && n <= 20 {
        // counts[k]: orderings of m values of one side and n of the other in which U = k, built up a value at a time.
        var table = [[[Double]]](repeating: [[Double]](repeating: [], count: n + 1), count: m + 1)
        for i in 0...m {
            for j in 0...n {
                if i == 0 || j == 0 {
                    table[i][j] = [1] + [Double](repeating: 0, count: i * j)
                    continue
                }
                var counts = [Double](repeating: 0, count: i * j + 1)
                // The largest value is the later side's (it beats all i earlier values) or the earlier side's.
                for (k, ways) in table[i][j - 1].enumerated() { counts[k + i] += ways }
                for (k, ways) in table[i - 1][j].enumerated() { counts[k] += ways }
                table[i][j] = counts
            }
        }
        let counts = table[m][n]
        let all = counts.reduce(0, +)
        let from = Int(u.rounded(.up))
        return from < counts.count ? counts[from...].reduce(0, +) / all : 0
    }
    let mean = Double(m * n) / 2
    let deviation = (Double(m * n * (m + n + 1)) / 12).squareRoot()
    let z = (u - 0.5 - mean) / deviation
    return 0.5 * erfc(z / 2.0.squareRoot())
}

/// A percentile interval of `statistic` over `resamples` bootstrap resamples, each drawing every sample of
/// `samples` anew with replacement from a generator seeded with `seed`: the same samples give the same interval.
func bootstrapInterval(
    _ samples: [[Double]], confidence: Double = 0.95, resamples: Int = 2000, seed: UInt64,
    statistic: ([[Double]]) -> Double
) -> ClosedRange<Double> {
    var generator = SplitMix64(seed: seed)
    var values: [Double] = []
    values.reserveCapacity(resamples)
    for _ in 0..<resamples {
        let drawn = samples.map { sample in
            sample.map { _ in sample[Int(generator.below(UInt64(sample.count)))] }
        }
        values.append(statistic(drawn))
    }
    values.sort()
    let tail = (1 - confidence) / 2
    let low = values[min(values.count - 1, Int((tail * Double(resamples)).rounded(.down)))]
    let high = values[min(values.count - 1, Int(((1 - tail) * Double(resamples)).rounded(.down)))]
    return low...high
}
