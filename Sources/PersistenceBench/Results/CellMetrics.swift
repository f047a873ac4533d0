import Foundation

/// What a cell's own process measured, in parts: the timed phase, the process's figures, what checks the answers,
/// the counts of a counted run, and the workload's own figures.
///
/// One flat coder: every part writes its keys into the same JSON object, so results.json keeps the keys it had
/// when the record was one flat value, and a new figure touches only its part.
public struct CellMetrics: Codable, Equatable, Sendable {
    /// The timed phase: seconds, operations, latencies, windows.
    package var phase: PhaseFigures
    /// Memory, faults, storage I/O and the store's files, as the process measured them around the phase.
    package var resources: ResourceFigures
    /// The digest and what it covers.
    package var verification: CellVerification
    /// What the counted region (the timed phase and the digest read) did that no machine changes: instructions,
    /// allocations, flushes, write calls and bytes written; nil unless the cell was counted (`run --count`).
    package var counts: OperationCounts?
    /// The workload's own figures, for a workload that has them; nil for the rest.
    package var figures: WorkloadFigures?

    package init(
        phase: PhaseFigures, resources: ResourceFigures, verification: CellVerification,
        counts: OperationCounts? = nil, figures: WorkloadFigures? = nil
    ) {
        self.phase = phase
        self.resources = resources
        self.verification = verification
        self.counts = counts
        self.figures = figures
    }

    /// The digest of the cell's answers (`verification.digest`).
    public var digest: Digest { verification.digest }

    // The cell's own keys: its counts, and two derived figures written out so that readers of results.json need not
    // derive them.
    private enum CodingKeys: String, CodingKey {
        case counts, operationsPerSecond, rssGrowthBytes
    }

    public init(from decoder: any Decoder) throws {
        phase = try PhaseFigures(from: decoder)
        resources = try ResourceFigures(from: decoder)
        verification = try CellVerification(from: decoder)
        counts = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(OperationCounts.self, forKey: .counts)
        figures = try WorkloadFigures.decodeIfPresent(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try phase.encode(to: encoder)
        try resources.encode(to: encoder)
        try verification.encode(to: encoder)
        try figures?.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(counts, forKey: .counts)
        try c.encode(phase.operationsPerSecond, forKey: .operationsPerSecond)
        try c.encodeIfPresent(resources.rssGrowthBytes, forKey: .rssGrowthBytes)
    }
}
