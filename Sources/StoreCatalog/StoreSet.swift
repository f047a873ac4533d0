import MemoryStore
import ORMStore
import PersistenceBench

/// The sets of stores CI runs its steps on, named where the Makefile and .ci/run use them
/// (`persistbench list --names SET`), so that no step keeps a list of its own and a new store joins its sets here.
public enum StoreSet: String, CaseIterable, Sendable {
    /// Every store.
    case all
    /// The default run's: one store of each strategy.
    case `default`
    /// The counted regression gate's matrix (`make check-counters`, `make counter-baseline`): every CRUD path of the
    /// stores whose code differs (the default stores but `json`, whose every durable write rewrites its file, and
    /// the variants that change what the store runs: settings, record conformances, statements, a map). Not
    /// `orm+batched`: its save every 10,000 items never comes at the counted scale, 2k, where it counted what `orm`
    /// counts in every cell (within 0.5 %).
    case counted
    /// The counted gate's other workloads (results/counter-baseline-workloads): one store of each engine, the default
    /// stores but `json` (its durable writes rewrite its file) and `orm+swiftdata` (the ORM's CRUD paths with its
    /// mechanisms are in `counted`).
    case countedEngines = "counted-engines"
    /// The variants that exist to be compared, counted on the paths they change (results/counter-baseline-variants):
    /// the full-text indexes, the explicit read transaction, the serialized queue.
    case countedVariants = "counted-variants"
    /// What the counted CRUD matrix leaves out, beside `sqlite`, whose digests theirs must match (`make smoke`).
    case uncounted
    /// Search as you type: the default stores and the full-text variants (`make smoke-search`).
    case search
    /// The live workloads (`make smoke-live`): every store but the whole-document ones (`json`, `plist`: each of
    /// observe's 1,000 commits rewrites the file, minutes at 10k) and the single SwiftData mechanisms of `orm`
    /// (`orm+swiftdata` runs them all).
    case live

    /// The set's stores, in the catalogue's order.
    public var stores: [StoreKind] {
        let all = StoreCatalog.all
        switch self {
        case .all:
            return all
        case .default:
            return all.filter(\.inDefaultRun)
        case .counted:
            return all.filter { Self.countedNames.contains($0.name) }
        case .countedEngines:
            return all.filter { $0.inDefaultRun && !["json", "orm+swiftdata"].contains($0.name) }
        case .countedVariants:
            return all.filter { ["sqlite+txn", "sqlite+fts", "grdb+queue", "grdb+fts"].contains($0.name) }
        case .uncounted:
            return all.filter { $0.name == "sqlite" || !Self.countedNames.contains($0.name) }
        case .search:
            return all.filter { $0.inDefaultRun || $0.name.hasSuffix("+fts") }
        case .live:
            let documents = Set(DocumentFormat.allCases.map(\.rawValue))
            let mechanisms = Set(ORMItemStore.kinds.filter { $0.inclusion == .whenNamed }.map(\.name))
            return all.filter { !documents.contains($0.name) && !mechanisms.contains($0.name) }
        }
    }

    private static let countedNames: Set<String> = [
        "sqlite", "sqlite+tuned", "grdb", "grdb+codable", "grdb+statements", "orm", "orm+swiftdata",
        "lmdb", "lmdb+writemap", "packed", "memory",
    ]
}
