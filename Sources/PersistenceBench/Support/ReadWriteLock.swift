import Glibc

/// A readers–writer lock (`pthread_rwlock_t`): many threads may hold it to read, one to write.
///
/// For stores whose readers on other threads must not see a write half done (`memory`'s arrays, `packed`'s rows
/// changed in place, `lmdb`'s map while it is resized). An uncontended lock or unlock is one atomic operation.
///
/// A writer that waits goes before readers that come after it (glibc's writer-preferring kind): a commit waits for
/// the reads in progress, not for a pause among readers. glibc's default prefers readers, and with two or more
/// readers looking up back to back (`get-readers`) their read locks overlap without a gap, and `packed`'s writer
/// waited for minutes. A thread must therefore never take the lock to read while it holds it to read.
package final class ReadWriteLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    package init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` holding the lock to read: beside other readers, never beside a writer.
    @inline(__always)
    package func reading<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    /// Runs `body` holding the lock alone.
    @inline(__always)
    package func writing<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
