import Foundation

/// One stored row as last read or written: the row cache's entry, shared by the object filled from it.
///
/// Core Data keeps such snapshots in its coordinator's row cache, reference-counted by the objects that use
/// them; they carry the row's version (`Z_OPT`) for the optimistic-locking check at save.
final class RowSnapshot {
    let primaryKey: Int64
    let entityIndex: Int
    var version: Int64
    var values: [AttributeValue]
    /// Unretained: every snapshot is held by a registered object, and a context detaches its objects before its
    /// container, which owns the cache, can go away.
    unowned(unsafe) let cache: RowCache

    init(primaryKey: Int64, entityIndex: Int, version: Int64, values: [AttributeValue], cache: RowCache) {
        self.primaryKey = primaryKey
        self.entityIndex = entityIndex
        self.version = version
        self.values = values
        self.cache = cache
    }

    deinit { cache.remove(self) }
}

/// The container's row cache: every stored row some live object was filled from, by entity and primary key.
///
/// Entries are not retained; a snapshot leaves the cache when the last object using it goes away.
///
/// Once contexts on several threads share it (`makeShared`), every access to it and to its snapshots' values holds
/// the coordinator's lock, as Core Data's coordinator serialises its row cache; until then no lock is taken.
final class RowCache {
    private var rows: [[Int64: Unmanaged<RowSnapshot>]]
    /// The coordinator's lock, recursive: a snapshot can leave the cache (its last object released) while the lock
    /// is held.
    private var lock: NSRecursiveLock?

    init(entityCount: Int) {
        rows = Array(repeating: [:], count: entityCount)
    }

    /// From now on every access takes the lock.
    ///
    /// Called before a second thread uses the cache.
    func makeShared() {
        if lock == nil { lock = NSRecursiveLock() }
    }

    /// Runs `body` holding the coordinator's lock, if the cache is shared.
    @inline(__always)
    func coordinated<T>(_ body: () throws -> T) rethrows -> T {
        guard let lock else { return try body() }
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The snapshot of a row a fetch read at `version` (`Z_OPT`), with `values` read from it when needed: the cached
    /// one, brought up to this version if it was older, or a new one, cached.
    ///
    /// A row older than the cached one (read on a connection whose read began before another context saved) gets a
    /// snapshot of its own, left out of the cache, which keeps the newer row: a save checks `Z_OPT` against the cached
    /// version, which must never go back.
    func snapshot(
        entityIndex: Int, primaryKey: Int64, version: Int64, values: () throws -> [AttributeValue]
    ) rethrows -> RowSnapshot {
        try coordinated {
            if let cached = rows[entityIndex][primaryKey]?.takeUnretainedValue() {
                if cached.version == version { return cached }
                if cached.version < version {
                    cached.values = try values()
                    cached.version = version
                    return cached
                }
                return RowSnapshot(
                    primaryKey: primaryKey, entityIndex: entityIndex, version: version, values: try values(),
                    cache: self)
            }
            let snapshot = RowSnapshot(
                primaryKey: primaryKey, entityIndex: entityIndex, version: version, values: try values(), cache: self)
            insert(snapshot)
            return snapshot
        }
    }

    /// The cached row, or nil.
    func snapshot(entityIndex: Int, primaryKey: Int64) -> RowSnapshot? {
        coordinated { rows[entityIndex][primaryKey]?.takeUnretainedValue() }
    }

    func insert(_ snapshot: RowSnapshot) {
        coordinated { rows[snapshot.entityIndex][snapshot.primaryKey] = Unmanaged.passUnretained(snapshot) }
    }

    func remove(_ snapshot: RowSnapshot) {
        coordinated {
            let key = snapshot.primaryKey
            if rows[snapshot.entityIndex][key]?.toOpaque() == Unmanaged.passUnretained(snapshot).toOpaque() {
                rows[snapshot.entityIndex][key] = nil
            }
        }
    }

    /// Rows cached, over all entities.
    var count: Int { coordinated { rows.reduce(0) { $0 + $1.count } } }
}
