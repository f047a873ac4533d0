import PersistenceBench

/// A second process on the store's environment (`two-processes`): LMDB is made for it. Readers take slots in
/// `lock.mdb`; one write transaction at a time holds the writer mutex there, and another process's write begin
/// waits for it, without a timeout. A begin during which another transaction committed found the mutex held: it
/// is counted as a wait, its whole time as waiting (`LMDBEnvironment.write`).
extension LMDBItemStore: LockWaitCountingStore {
    package var lockWaits: LockWaits { environment.writerLockWaits.waits }
    package static var lockWaitPolicy: String {
        "LMDB's writer mutex, no timeout (a begin that found it held, its time)"
    }
}
