import GRDBStore
import LMDBStore
import MemoryStore
import ORMStore
import PackedStore
import PersistenceBench
import SQLiteStore
import Synchronization

/// Every store this build has, in the order reports list them: the one list the tool, the tests and the
/// package-benchmark suites share.
///
/// A package that benchmarks its own stores adds them after the built-in ones (`add(_:)`, through
/// `PersistBenchTool.main(adding:)`).
public enum StoreCatalog {
    /// The stores of this package.
    public static let builtIn: [StoreKind] =
        SQLiteItemStore.kinds + GRDBItemStore.kinds + ORMItemStore.kinds + LMDBItemStore.kinds
        + PackedItemStore.kinds + MemoryItemStore.kinds

    /// The built-in stores, then those added.
    public static var all: [StoreKind] { builtIn + added.withLock { $0 } }

    public static func kind(named name: String) -> StoreKind? { all.first { $0.name == name } }

    /// Per store that declares any, the counters its design makes scheduling-dependent, with its reasons.
    package static var schedulingDependent: [String: [SchedulingDependentCounter: String]] {
        Dictionary(
            uniqueKeysWithValues: all.filter { !$0.schedulingDependent.isEmpty }.map {
                ($0.name, $0.schedulingDependent)
            })
    }

    /// Adds stores defined outside this package, after the built-in ones, before a command reads the catalogue.
    ///
    /// Throws `BadInput` as `adding(_:to:)` does.
    package static func add(_ kinds: [StoreKind]) throws {
        try added.withLock { added in added = try adding(kinds, to: added) }
    }

    /// `added` with `kinds` after it.
    ///
    /// Throws `BadInput` for a name that is empty, not lowercase kebab-case (letters, digits, `-`, `+`: names are words
    /// on the command line and in results files), or a store's or a set's already.
    package static func adding(_ kinds: [StoreKind], to added: [StoreKind]) throws -> [StoreKind] {
        var added = added
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-+")
        for kind in kinds {
            guard !kind.name.isEmpty, kind.name.allSatisfy(allowed.contains) else {
                throw BadInput("the added store '\(kind.name)' needs a name of lowercase letters, digits, '-' and '+'")
            }
            let taken = builtIn.map(\.name) + added.map(\.name) + StoreSet.allCases.map(\.rawValue)
            guard !taken.contains(kind.name) else {
                throw BadInput("the added store '\(kind.name)' has a name that a store or a store set already has")
            }
            added.append(kind)
        }
        return added
    }

    private static let added = Mutex<[StoreKind]>([])
}
