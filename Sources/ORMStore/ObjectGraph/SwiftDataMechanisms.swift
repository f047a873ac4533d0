/// What SwiftData and Core Data do at a save or an attribute access beyond the object graph this emulation
/// always has (context, identity map, faults, row cache, change tracking, optimistic locking).
///
/// Each can be switched on alone, so that a run can say what each adds (`orm+history`, `orm+upsert`, …);
/// `orm+swiftdata` has them all.
package struct SwiftDataMechanisms: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// Persistent history, which SwiftData turns on for every store: each save writes one transaction row
    /// (`ATRANSACTION`) and one change row per inserted, updated or deleted object (`ACHANGE`: the entity, the
    /// row, the kind of change, the changed columns of an update, the unique attribute of a deleted row).
    package static let historyTracking = SwiftDataMechanisms(rawValue: 1 << 0)
    /// Upsert for unique attributes (`@Attribute(.unique)`): each inserted object's unique attributes are
    /// looked up at the save (one indexed query per object), and an object matching a stored row updates that
    /// row instead of inserting one.
    package static let upsert = SwiftDataMechanisms(rawValue: 1 << 1)
    /// An `ObservationRegistrar` per object (Swift's Observation, as `@Model` declares one), called on every
    /// attribute get (`access`) and set (`withMutation`): what `@Model`'s generated accessors do.
    package static let observation = SwiftDataMechanisms(rawValue: 1 << 2)
    /// A save notification carrying the inserted, updated and deleted objects' identifiers
    /// (`ModelContext.didSave`), posted through `NotificationCenter` after every save.
    package static let saveNotification = SwiftDataMechanisms(rawValue: 1 << 3)
    /// Core Data's maintenance after a save, which its SQL log shows: `PRAGMA incremental_vacuum` (the store is
    /// created with `auto_vacuum=INCREMENTAL`) and `PRAGMA wal_checkpoint(TRUNCATE)`.
    ///
    /// Here after every save: an assumption, labelled so in reports. The published logs (Core Data on an iPhone 14 Pro,
    /// saving 100k-object chunks) show both during saves, not how often Core Data runs them.
    package static let postSaveMaintenance = SwiftDataMechanisms(rawValue: 1 << 4)

    package static let all: SwiftDataMechanisms = [
        .historyTracking, .upsert, .observation, .saveNotification, .postSaveMaintenance,
    ]

    /// Each mechanism alone, with the suffix of the store variant that has only it and one line on what it does.
    package static let each: [(mechanism: SwiftDataMechanisms, suffix: String, summary: String)] = [
        (.historyTracking, "history", "persistent history: a transaction row and a change row per object, every save"),
        (.upsert, "upsert", "upsert of unique attributes: one indexed look-up per inserted object at the save"),
        (.observation, "observation", "an Observation registrar per object, called on every attribute get and set"),
        (.saveNotification, "notification", "a didSave notification with the changed objects' identifiers"),
        (
            .postSaveMaintenance, "maintenance",
            "incremental_vacuum and wal_checkpoint(TRUNCATE) after every save (auto_vacuum=INCREMENTAL; every "
                + "save is an assumption: Core Data's logs show both during saves, not how often)"
        ),
    ]
}
