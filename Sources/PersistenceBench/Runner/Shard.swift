import Foundation

/// A deterministic part of a run's matrix (`run --shard K/N`), so that a run too long for one machine can be split
/// over several and joined again (`merge`).
///
/// Every (workload, scale) group (the cells a report compares stores on, and whose time box sets one count of steps for
/// all of them) goes whole to one shard: every comparison between stores stays within one machine.
package struct Shard: Codable, Equatable, Sendable, CustomStringConvertible {
    /// 1-based.
    package var index: Int
    package var count: Int

    package init(index: Int, count: Int) {
        precondition(count >= 1 && (1...count).contains(index))
        self.index = index
        self.count = count
    }

    /// "K/N" with 1 ≤ K ≤ N; nil for anything else.
    package init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
            (1...count).contains(index)
        else { return nil }
        self.init(index: index, count: count)
    }

    /// `--shard K/N` of `configuration`'s matrix: bad input unless it parses and the matrix has at least N groups.
    package init(option text: String, of configuration: RunConfiguration) throws {
        guard let parsed = Shard(parsing: text) else {
            throw BadInput("invalid --shard '\(text)': use K/N with 1 ≤ K ≤ N, such as 1/4")
        }
        let groups = Self.groups(of: configuration).count
        guard parsed.count <= groups else {
            throw BadInput(
                "invalid --shard \(text): the matrix has \(groups) (workload, scale) group(s), each run whole by one "
                    + "part, so at most \(groups) parts")
        }
        self = parsed
    }

    package var description: String { "\(index)/\(count)" }

    /// Every group of the matrix, scale by scale and workload by workload (the order a run plans them in).
    package static func groups(of configuration: RunConfiguration) -> [GroupID] {
        configuration.scales.flatMap { scale in
            configuration.workloads.map { GroupID(workload: $0, scale: scale) }
        }
    }

    /// The groups dealt to `count` shards: costliest first (a group's cells load and work on its records for every
    /// store and repetition, so they cost about records × repetitions), each to the shard with the least cost so
    /// far, ties to the lower index.
    ///
    /// Only the configuration's scales and workloads decide it, so every machine given the same options computes the
    /// same cut. Each shard's groups keep the run's order.
    package static func deal(_ configuration: RunConfiguration, into count: Int) -> [[GroupID]] {
        let all = groups(of: configuration)
        let cost = all.map { $0.scale.records * configuration.repetitions(at: $0.scale) }
        let byCost = all.indices.sorted { cost[$0] > cost[$1] || (cost[$0] == cost[$1] && $0 < $1) }
        var load = [Int](repeating: 0, count: count)
        var dealt = [[Int]](repeating: [], count: count)
        for group in byCost {
            let shard = load.indices.min { load[$0] < load[$1] || (load[$0] == load[$1] && $0 < $1) } ?? 0
            load[shard] += cost[group]
            dealt[shard].append(group)
        }
        return dealt.map { $0.sorted().map { all[$0] } }
    }

    /// This shard's groups of `configuration`'s matrix.
    package func groups(of configuration: RunConfiguration) -> [GroupID] {
        Self.deal(configuration, into: count)[index - 1]
    }
}
