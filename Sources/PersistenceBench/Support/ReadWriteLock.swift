import Glibc

/// A readers–writer lock (`pthread_rwlock_t`): many threads may hold it to read, one to write.
///
/// For stores whose readers on other threads must not see a write half done (`memory`'s arrays, `packed`'s rows
/// changed in place, `lmdb`'s map while it is resized). An uncontended lock or unlock is one atomic operation.
package final class ReadWriteLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    package init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
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
