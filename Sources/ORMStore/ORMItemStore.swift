import Foundation
import PersistenceBench
import SQLiteSupport

/// `orm` and `orm+batched`: the workloads done the object-graph way, through `ModelContext`, as a SwiftData or
/// Core Data user writes them.
///
/// An emulation of their cost structure on Linux, not SwiftData or Core Data.
///
/// Inserts create objects in the context; `orm` saves once at the end of the load, as SwiftData users do,
/// `orm+batched` saves and resets every batch. Reads fetch objects and read their attributes; updates and
/// deletes fetch the objects, change or delete them, and save.
package final class ORMItemStore: ObjectGraphStore {
    package static let kinds =
        [
            kind(
                "orm",
                summary: "object-graph ORM emulating Core Data/SwiftData over the SQLite C API: context, identity map, "
                    + "faults, row cache, change tracking; one save after a bulk load",
                savesOnce: true, inclusion: .defaultRun,
                open: { try ORMItemStore(directory: $0, savesEveryBatch: false) }),
            kind(
                "orm+batched",
                summary: "the same ORM; a bulk load saves and resets the context every batch (Core Data's advice)",
                open: { try ORMItemStore(directory: $0, savesEveryBatch: true) }),
            ORMPrefetchingStore.kind,
            kind(
                "orm+external",
                summary: "the `orm` emulation with \"Allows External Storage\" on blob attributes (SwiftData's "
                    + "`@Attribute(.externalStorage)`): a value over 100 KB is written to a file in "
                    + ".records_SUPPORT/_EXTERNAL_DATA, its name in the row; only record shapes with blobs differ",
                savesOnce: true, inclusion: .whenNamed,
                open: { try ORMItemStore(directory: $0, savesEveryBatch: false, externalStorage: true) }),
            kind(
                "orm+swiftdata",
                summary: "the `orm` emulation plus what SwiftData and Core Data do beyond it: persistent history, "
                    + "upsert of unique attributes, an Observation registrar on every attribute get and set, a didSave "
                    + "notification with the changed identifiers, incremental_vacuum and wal_checkpoint(TRUNCATE) "
                    + "after every save (how often is an assumption: Core Data's logs show both during saves)",
                mechanisms: .all, savesOnce: true, inclusion: .defaultRun,
                open: { try ORMItemStore(directory: $0, savesEveryBatch: false, mechanisms: .all) }),
        ]
        + SwiftDataMechanisms.each.map { mechanism, suffix, summary in
            kind(
                "orm+" + suffix, summary: "the `orm` emulation plus one mechanism: " + summary,
                mechanisms: mechanism, savesOnce: true, inclusion: .whenNamed,
                open: { try ORMItemStore(directory: $0, savesEveryBatch: false, mechanisms: mechanism) })
        }

    /// Every ORM variant's kind: the same durability, configuration and engine, the configuration naming
    /// `auto_vacuum` where post-save maintenance needs it.
    ///
    /// `orm` and `orm+swiftdata` are in the default run; variants with one SwiftData mechanism are measured when named,
    /// to say what it adds. A variant that `savesOnce` after a bulk load has its `insert` cells say so: the other
    /// stores commit every batch.
    static func kind(
        _ name: String, summary: String, mechanisms: SwiftDataMechanisms = [], savesOnce: Bool = false,
        inclusion: StoreKind.Inclusion = .variant,
        type: any Store.Type = ORMItemStore.self, open: @escaping @Sendable (URL) throws -> any Store
    ) -> StoreKind {
        let vacuum = mechanisms.contains(.postSaveMaintenance) ? " auto_vacuum=INCREMENTAL" : ""
        var notes: [String: String] = [:]
        if savesOnce { notes["insert"] = "one save after the whole load (SwiftData's idiom), not one per batch" }
        if mechanisms.contains(.postSaveMaintenance) {
            let maintenance = "vacuum and checkpoint after every save (assumed frequency)"
            for workload in ["insert", "insert-each", "update", "delete", "write-then-page"] {
                notes[workload] = notes[workload].map { "\($0); \(maintenance)" } ?? maintenance
            }
        }
        return StoreKind(
            name: name, summary: summary, durability: "every save fsynced (WAL, synchronous=FULL)",
            configuration: SQLiteConnection.defaultConfiguration + vacuum + "; a row cache of the rows live objects "
                + "hold",
            engine: { SQLiteConnection.engine }, inclusion: inclusion, workNotes: notes, type: type, open: open)
    }

    /// The store's model: every record type, as one app's model holds all its entities.
    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel([
            Model.Item.self, Model.Sport.self, Model.Team.self, Model.House.self, Model.Floor.self, Model.Room.self,
            Model.Sample.self, Model.CallStack.self,
        ])
    }

    let container: ModelContainer
    let context: ModelContext
    let savesEveryBatch: Bool
    let directory: URL
    /// Whether a record shape's blob attributes allow external storage (`orm+external`).
    let externalStorage: Bool
    /// The records of a shape, in a container of their own, once asked (`ORMItemStore+Records.swift`).
    var recordTable: ORMRecordTable?
    /// Each container's page cache while an untimed build runs (`+Build`): a record table opened during it builds so
    /// too.
    var buildCacheBytes: Int?
    var prefetchesRelationships: Bool { false }
    var profileStacks: ProfileStacks?

    package init(
        directory: URL, savesEveryBatch: Bool, mechanisms: SwiftDataMechanisms = [], externalStorage: Bool = false
    ) throws {
        self.directory = directory
        self.externalStorage = externalStorage
        container = try ModelContainer(
            model: Self.makeModel(), url: directory.appendingPathComponent(Self.databaseName), mechanisms: mechanisms)
        context = ModelContext(container)
        self.savesEveryBatch = savesEveryBatch
    }

    /// Closes without saving: like a process that ends, it drops what was not saved.
    package func close() throws {
        resetContext()
        try recordTable?.close()
        try container.close()
    }

    package func settle() throws {
        try container.checkpoint()
        try recordTable?.container.checkpoint()
    }
}
