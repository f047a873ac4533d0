import Glibc

/// An exclusive, advisory lock on a store's directory, held from its open to its close (`flock` on a lock file in
/// it): how a store that one process alone may write (`packed`, the heap stores) refuses a second process rather
/// than lose its commits.
///
/// The kernel releases it when the process ends, however it ends, so a crash never leaves the store locked. Another
/// open in the same process is refused too: one store object per directory.
package final class DirectoryLock {
    /// The lock file's name inside the store's directory.
    package static let fileName = "store.lock"

    private var descriptor: Int32

    /// How long an open waits for the lock before it refuses: a lock is also held, for an instant, by a child that
    /// this process (or any process that held it) is starting, between its fork and its exec, when its copy of the
    /// lock's descriptor closes (`O_CLOEXEC`).
    ///
    /// An open a real holder keeps the lock from is refused after this.
    static let graceSeconds = 0.1

    /// Takes the lock on `directory` for the store `store`, or throws `StoreInUse` if another open holds it.
    package init(_ directory: String, store: String) throws {
        let path = directory + "/" + Self.fileName
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchError.system("open \(path)") }
        let started = monotonicNanoseconds()
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EWOULDBLOCK && secondsSince(started) < Self.graceSeconds {
                usleep(1_000)
                continue
            }
            close(descriptor)
            if code == EWOULDBLOCK { throw StoreInUse(store: store, directory: directory) }
            throw BenchError("flock \(path)", errno: code)
        }
    }

    /// Releases the lock; calling it again does nothing.
    package func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}

/// A second open of a store that one process alone may write, refused (`DirectoryLock`).
package struct StoreInUse: Error, CustomStringConvertible {
    package let store: String
    package let directory: String

    package var description: String {
        "\(store) at \(directory) is open in another process (or elsewhere in this one); \(store) lets one open "
            + "write its files at a time, and refuses the others"
    }
}
