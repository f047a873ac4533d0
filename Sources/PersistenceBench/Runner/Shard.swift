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
    /// Each group's estimated seconds, which the cut deals by; nil: it deals by records × repetitions.
    ///
    /// From earlier runs' cells (`run --shard K/N --estimate-from DIR`); recorded, so that a resume and `merge` cut
    /// the same parts.
    package var costs: [GroupCost]?

    /// A group and its estimated seconds (`costs`).
    package struct GroupCost: Codable, Equatable, Sendable {
        package var group: GroupID
        package var seconds: Double
    }

    package init(index: Int, count: Int, costs: [GroupCost]? = nil) {
        precondition(count >= 1 && (1...count).contains(index))
        self.index = index
        self.count = count
        self.costs = costs
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

    /// The groups dealt to `count` shards, costliest first, each to the shard with the least cost so far.
    ///
    /// Ties go to the lower index. A group's cost is its estimated seconds (`costs`), else its records × repetitions
    /// (its cells load and work on its records for every store and repetition).
    ///
    /// Only the configuration's scales and workloads and the costs decide it, so every machine given the same options
    /// computes the same cut. Each shard's groups keep the run's order.
    package static func deal(_ configuration: RunConfiguration, into count: Int, costs: [GroupCost]? = nil)
        -> [[GroupID]]
    {
        let all = groups(of: configuration)
        let estimated = costs.map { Dictionary($0.map { ($0.group, $0.seconds) }, uniquingKeysWith: max) }
        let cost = all.map { group in
            estimated.map { $0[group] ?? 0 } ?? Double(group.scale.records * configuration.repetitions(at: group.scale))
        }
        let byCost = all.indices.sorted { cost[$0] > cost[$1] || (cost[$0] == cost[$1] && $0 < $1) }
        var load = [Double](repeating: 0, count: count)
        var dealt = [[Int]](repeating: [], count: count)
        for group in byCost {
            let shard = load.indices.min { load[$0] < load[$1] || (load[$0] == load[$1] && $0 < $1) } ?? 0
            load[shard] += cost[group]
            dealt[shard].append(group)
        }
        return dealt.map { $0.sorted().map { all[$0] } }
    }

    /// Each shard's estimated seconds under `costs` (the sums the cut evened out), in shard order.
    package static func estimatedSeconds(_ configuration: RunConfiguration, into count: Int, costs: [GroupCost])
        -> [Double]
    {
        let seconds = Dictionary(costs.map { ($0.group, $0.seconds) }, uniquingKeysWith: max)
        return deal(configuration, into: count, costs: costs).map { groups in
            groups.map { seconds[$0] ?? 0 }.reduce(0, +)
        }
    }

    /// This shard's groups of `configuration`'s matrix.
    package func groups(of configuration: RunConfiguration) -> [GroupID] {
        Self.deal(configuration, into: count, costs: costs)[index - 1]
    }
}
