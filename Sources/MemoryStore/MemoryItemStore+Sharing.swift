import PersistenceBench

/// A second process on the store (`two-processes`): refused. The heap stores hold everything in one process's
/// memory and write it whole (a document at every commit, a dump at close), so a second writer's file would be
/// overwritten by the first's next write: without the lock, every commit of one process was lost and renames of the
/// shared temporary file failed (docs/findings.md). The open takes `DirectoryLock`; a second open throws
/// `StoreInUse`.
extension MemoryItemStore.Persistence {
    /// The store's name in a refusal's message.
    var storeName: String {
        switch self {
        case .dumpAtClose: StoreKind.harnessFloorName
        case .document(let format): format.rawValue
        }
    }
}
