import Foundation

/// A workload's figures of its own, beside the timed phase every cell has: one case per workload that has them,
/// coded under its own key of the cell's metrics.
package enum WorkloadFigures: Equatable, Sendable {
    /// `read-while-import`'s reader alone and during the import, and its import alone.
    case readWhileImport(ReadWhileImportMetrics)
    /// `observe`'s and `observe-burst`'s notices, queries and observer CPU.
    case observe(ObserveMetrics)
    /// `get-readers`' reads per level of readers, alone and beside its writer.
    case readers(ReadersMetrics)
    /// `two-processes`' commits of both processes, their waits and losses, or the second's refusal.
    case twoProcesses(TwoProcessesMetrics)
    /// `pinned-reader`'s file sizes over the import beside a held snapshot, and after its release and the settle.
    case pinnedReader(PinnedReaderMetrics)

    package var readWhileImport: ReadWhileImportMetrics? { if case .readWhileImport(let m) = self { m } else { nil } }
    package var observe: ObserveMetrics? { if case .observe(let m) = self { m } else { nil } }
    package var readers: ReadersMetrics? { if case .readers(let m) = self { m } else { nil } }
    package var twoProcesses: TwoProcessesMetrics? { if case .twoProcesses(let m) = self { m } else { nil } }
    package var pinnedReader: PinnedReaderMetrics? { if case .pinnedReader(let m) = self { m } else { nil } }

    /// The case's figures, for a renderer that knows their type (a report's table of them).
    package var payload: any Sendable {
        switch self {
        case .readWhileImport(let m): m
        case .observe(let m): m
        case .readers(let m): m
        case .twoProcesses(let m): m
        case .pinnedReader(let m): m
        }
    }

    private enum CodingKeys: String, CodingKey {
        case readWhileImport, observe, readers, twoProcesses, pinnedReader
    }

    /// The figures under whichever of the cases' keys the cell's metrics hold; nil where none.
    package static func decodeIfPresent(from decoder: any Decoder) throws -> WorkloadFigures? {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let m = try c.decodeIfPresent(ReadWhileImportMetrics.self, forKey: .readWhileImport) {
            return .readWhileImport(m)
        }
        if let m = try c.decodeIfPresent(ObserveMetrics.self, forKey: .observe) { return .observe(m) }
        if let m = try c.decodeIfPresent(ReadersMetrics.self, forKey: .readers) { return .readers(m) }
        if let m = try c.decodeIfPresent(TwoProcessesMetrics.self, forKey: .twoProcesses) { return .twoProcesses(m) }
        if let m = try c.decodeIfPresent(PinnedReaderMetrics.self, forKey: .pinnedReader) { return .pinnedReader(m) }
        return nil
    }

    /// Writes the figures under their case's key, beside the cell's other metrics.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .readWhileImport(let m): try c.encode(m, forKey: .readWhileImport)
        case .observe(let m): try c.encode(m, forKey: .observe)
        case .readers(let m): try c.encode(m, forKey: .readers)
        case .twoProcesses(let m): try c.encode(m, forKey: .twoProcesses)
        case .pinnedReader(let m): try c.encode(m, forKey: .pinnedReader)
        }
    }
}
