import ArgumentParser
import PersistenceBench

struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the keys (or, for YCSB, the operations) a cell would use, or how they spread.",
        discussion: """
            One a line, as a run draws them from the seed: `READ 17`, `SCAN 17 42`, `INSERT 100001`. With \
            --summary: the hottest key's share, the hottest 1 % and 10 %'s, and the distinct keys drawn.
            """)

    @Option(help: "A workload whose keys are drawn from the seed: \(keyedNames.joined(separator: ", ")).")
    var workload: String

    @Option(parsing: .unconditional, help: "The scale in records: 10k, 1M, 1e6, 1000000.", transform: ScaleOption.parse)
    var scale: ScaleOption

    @Option(parsing: .unconditional, help: "Print only the first this many (default: every key the cell uses).")
    var count: Int?

    @Option(parsing: .unconditional, help: "Seed of the key sequences.")
    var seed: UInt64 = 42

    @Flag(help: "Print how the keys spread instead of the keys.")
    var summary = false

    static var keyedNames: [String] { WorkloadCatalog.all.filter { $0 is any KeyedWorkload }.map(\.name) }

    func validate() throws {
        guard WorkloadCatalog.workload(named: workload) is any KeyedWorkload else {
            throw ValidationError(
                "'\(workload)' is not a workload whose keys are drawn from the seed; one of: "
                    + Self.keyedNames.joined(separator: ", "))
        }
        if let count, count < 1 { throw ValidationError("--count must be at least 1, not \(count)") }
    }

    func run() {
        guard let keyed = WorkloadCatalog.workload(named: workload) as? any KeyedWorkload else { return }
        print(keyed.keys(scale: scale.scale.records, seed: seed, count: count, summary: summary))
    }
}
