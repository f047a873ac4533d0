import Glibc

/// An exclusive, advisory lock on a store's directory, held from its open to its close (`flock` on a lock file in
/// it): how a store that one process alone may write (`packed`, the heap stores) refuses a second process rather
/// than lose its commits. The kernel releases it when the process ends, however it ends, so a crash never leaves
/// the store locked. Another open in the same process is refused too: one store object per directory.
package final class DirectoryLock {
    /// The lock file's name inside the store's directory.
    package static let fileName = "store.lock"

    private var descriptor: Int32

    /// Takes the lock on `directory` for the store `store`, or throws `StoreInUse` at once if another open holds it.
    package init(_ directory: String, store: String) throws {
        let path = directory + "/" + Self.fileName
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchError.system("open \(path)") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
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
