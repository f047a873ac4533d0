extension CellMetrics {
    /// Seconds per timed operation.
    public var timePerOperation: Double { operations > 0 ? timedSeconds / Double(operations) : timedSeconds }
}

/// The median (mean of the two middle values for an even count), or nil for no values.
public func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
