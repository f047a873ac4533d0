import Foundation

/// A store that can check its own files after a crash: what `persistbench crash` and `verify` run after reopening.
///
/// A store from another package that conforms is crash-checked as the built-in ones are (kills, power-loss crash
/// states, two crashes, faults); `checkIntegrity()` and `storeFiles(in:kind:)` are all it must write.
public protocol IntegrityCheckingStore: ItemStore {
    /// Checks the store's files with the store's own means (SQLite's `PRAGMA integrity_check`, a walk of every
    /// LMDB database, `packed`'s checksums and bounds) and throws a `DamagedStore` naming the file and the place
    /// of the first damage found.
    func checkIntegrity() throws

    /// Every problem the check finds (a few of each kind at most), empty when the files are sound: what `verify`
    /// prints, one line each. By default the first damage `checkIntegrity()` throws.
    func integrityProblems() throws -> [DamagedStore]

    /// What the open's recovery did to reach a committed state, one plain line each (a commit it did not trust, a
    /// creation it made again); empty when it found the last commit whole, and for stores whose engine recovers
    /// without saying.
    var recoveryNotes: [String] { get }

    /// The files a store of kind `kind` (one of this type's names) keeps in `directory`: what `verify` requires,
    /// whole and readable, before it opens anything, since an open would make a missing one again.
    static func storeFiles(in directory: URL, kind: String) -> StoreFiles

    /// Damage the files show before an open reads them (a file shorter than its own header says it is, which a map
    /// of it would fault on): what `verify` reports instead of opening. Called only when every data file is there,
    /// a regular file, not empty and readable. None by default.
    static func damageBeforeOpen(in directory: URL, kind: String) -> [DamagedStore]
}

/// The files that make a store of one kind, by path relative to its directory.
public struct StoreFiles: Sendable {
    /// The files that hold the data: each must be there, a regular file, not empty and readable.
    public var data: [String]
    /// Files only a store of this kind leaves and its engine makes again (a WAL, LMDB's `lock.mdb`): with one of
    /// them there and a data file missing, the directory is a damaged store of the kind, not some other directory.
    public var traces: [String]

    public init(data: [String], traces: [String] = []) {
        self.data = data
        self.traces = traces
    }
}

extension IntegrityCheckingStore {
    public func integrityProblems() throws -> [DamagedStore] {
        do {
            try checkIntegrity()
            return []
        } catch let damage as DamagedStore {
            return [damage]
        }
    }

    public var recoveryNotes: [String] { [] }

    public static func damageBeforeOpen(in directory: URL, kind: String) -> [DamagedStore] { [] }
}

/// Damage an integrity check found: the file, where in it (a byte offset, or a page), and what.
public struct DamagedStore: Error, CustomStringConvertible, Sendable {
    /// The file, by its path relative to the store's directory.
    public let file: String
    /// Where in it: a byte offset, a page, a record.
    public let place: String?
    public let problem: String

    public init(file: String, place: String? = nil, problem: String) {
        self.file = file
        self.place = place
        self.problem = problem
    }

    public var description: String { "\(file)\(place.map { " at \($0)" } ?? ""): \(problem)" }
}

extension DamagedStore {
    /// Runs a check of `file`; an error it throws that is not already a `DamagedStore` (an engine's "malformed"
    /// error in the middle of the check) becomes one naming the file.
    public static func checking(_ file: String, _ body: () throws -> Void) throws {
        do { try body() } catch let damage as DamagedStore { throw damage } catch {
            throw DamagedStore(file: file, problem: "\(error)")
        }
    }
}
