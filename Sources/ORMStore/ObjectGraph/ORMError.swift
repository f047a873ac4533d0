/// An error of the object graph: a model that does not resolve, a store written with another model, a save
/// that fails validation or an optimistic-locking check.
///
/// SQLite's own errors arrive as `SQLiteError`.
package enum ORMError: Error, CustomStringConvertible, Equatable {
    case model(String)
    /// The store's path, and why the model cannot open it.
    case incompatibleStore(String, String)
    /// The object, and the attribute that failed.
    case validation(String, String)
    /// The object whose row changed or vanished since it was read (`Z_OPT` differs).
    case optimisticLockingFailure(String)
    /// The object whose row is not in the store.
    case objectNotFound(String)

    package var description: String {
        switch self {
        case .model(let message): "model: \(message)"
        case .incompatibleStore(let path, let reason): "cannot open \(path) with this model: \(reason)"
        case .validation(let object, let attribute): "validation failed for \(object): \(attribute) is required"
        case .optimisticLockingFailure(let object):
            "optimistic locking failure: \(object) was changed or deleted in the store since it was read"
        case .objectNotFound(let object): "\(object) has no row in the store"
        }
    }
}
