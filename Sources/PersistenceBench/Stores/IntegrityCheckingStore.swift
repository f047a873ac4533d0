/// A store that can check its own files after a crash: what `persistbench crash` and `verify` run after reopening.
package protocol IntegrityCheckingStore: ItemStore {
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
}

extension IntegrityCheckingStore {
    package func integrityProblems() throws -> [DamagedStore] {
        do {
            try checkIntegrity()
            return []
        } catch let damage as DamagedStore {
            return [damage]
        }
    }

    package var recoveryNotes: [String] { [] }
}

/// Damage an integrity check found: the file, where in it (a byte offset, or a page), and what.
package struct DamagedStore: Error, CustomStringConvertible, Sendable {
    package let file: String
    package let place: String?
    package let problem: String

    package init(file: String, place: String? = nil, problem: String) {
        self.file = file
        self.place = place
        self.problem = problem
    }

    package var description: String { "\(file)\(place.map { " at \($0)" } ?? ""): \(problem)" }
}

extension DamagedStore {
    /// Runs a check of `file`; an error it throws that is not already a `DamagedStore` (an engine's "malformed"
    /// error in the middle of the check) becomes one naming the file.
    package static func checking(_ file: String, _ body: () throws -> Void) throws {
        do { try body() } catch let damage as DamagedStore { throw damage } catch {
            throw DamagedStore(file: file, problem: "\(error)")
        }
    }
}
