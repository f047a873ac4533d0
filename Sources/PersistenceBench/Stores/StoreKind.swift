import Foundation

/// How the tool finds, describes and opens a store.
public struct StoreKind: Sendable {
    /// The short name used on the command line, in results and in reports: `sqlite`, `grdb+codable`.
    public let name: String
    /// One line: what this store is and how it is used.
    package let summary: String
    /// What a commit guarantees, in one line.
    package let durability: String
    /// What survives a kill or a power cut, as `persistbench crash` checks it.
    package let promise: DurabilityPromise
    /// How the store is configured, in one line: pragmas, page cache, map sizes, sync mode.
    ///
    /// Reports state it beside the engine, so that a reader sees what each store was allowed to use.
    package let configuration: String
    /// The engine and its version, as linked at run time ("SQLite 3.40.1").
    package let engine: @Sendable () -> String
    /// Which runs that name no stores include this one.
    package let inclusion: Inclusion
    /// Per workload where this store does other work than the others (one save where they commit every batch,
    /// answers from memory decoded at open), what it does, in a few words: reports show it in the store's cells.
    package let workNotes: [String: String]
    /// Per workload its type's capability would let it run but this setting cannot (`grdb+queue`'s one connection
    /// has no snapshot to pin), why: its cells are n/a, with the reason.
    package let cannotRun: [String: String]
    /// Counters the store's design makes depend on how its threads are scheduled (it hands work to a thread of its
    /// own), each with the reason: `check --counters` shows them and does not judge them.
    ///
    /// Empty for a store that does its work on the caller's thread, as every built-in one does; a store with threads
    /// whose counters hold still needs none (a baseline of 3 repetitions or more lets each counter move as far as it
    /// measured).
    package let schedulingDependent: [SchedulingDependentCounter: String]
    /// The store's type, for capability checks without opening a store.
    public let type: any Store.Type
    /// Creates a store in an empty directory, or opens the one it finds there.
    package let open: @Sendable (URL) throws -> any Store

    /// Which runs that name no stores include a store.
    public enum Inclusion: Sendable {
        /// A strategy of its own (`sqlite`, `grdb`, `json`): in every default — `persistbench run`, `crash`, the
        /// package-benchmark suites.
        case defaultRun
        /// Another setting of a strategy (`sqlite+tuned`, `grdb+codable`, `lmdb+nometasync`): in `crash`'s default
        /// and the package-benchmark suites; `persistbench run` measures it when named or with `--stores all`.
        case variant
        /// One mechanism isolated (`orm+history`): measured only when named, or by `run --stores all`.
        case whenNamed
    }

    /// Whether `persistbench run` includes the store when no stores are named.
    package var inDefaultRun: Bool { inclusion == .defaultRun }

    /// Whether `persistbench crash` and the package-benchmark suites include the store when none are named.
    public var inDefaultChecks: Bool { inclusion != .whenNamed }

    /// Whether `persistbench crash` can check the store: it has an integrity check and a promise to keep.
    package var isCrashChecked: Bool { type is any IntegrityCheckingStore.Type && promise != .nothing }

    /// The name of the store that measures the harness floor (`memory`): reports show it beside every store and
    /// never call it the best.
    package static let harnessFloorName = "memory"

    public init(
        name: String, summary: String, durability: String, promise: DurabilityPromise = .everyCommit,
        configuration: String, engine: @escaping @Sendable () -> String,
        inclusion: Inclusion = .defaultRun, workNotes: [String: String] = [:], cannotRun: [String: String] = [:],
        schedulingDependent: [SchedulingDependentCounter: String] = [:],
        type: any Store.Type, open: @escaping @Sendable (URL) throws -> any Store
    ) {
        self.schedulingDependent = schedulingDependent
        self.workNotes = workNotes
        self.cannotRun = cannotRun
        self.name = name
        self.summary = summary
        self.durability = durability
        self.promise = promise
        self.configuration = configuration
        self.engine = engine
        self.inclusion = inclusion
        self.type = type
        self.open = open
    }
}
