import Foundation

/// What checks a cell's answers: the digest, the steps it covers, and what the store did to give them.
package struct CellVerification: Codable, Equatable, Sendable {
    /// The digest of the answers, or of what a changing workload left in the store, read back after the phase.
    package var digest: Digest
    /// For a loop of steps (`get`, `get-batch`, `page`, `insert-each`, `write-then-page`): the steps it did, the
    /// same in every cell of a (workload, scale) once the run has set the count (`TimeBox`).
    ///
    /// Nil elsewhere.
    package var steps: Int?
    /// True where the cell did fewer steps than its workload's own count: the time box (`--time-box`) set its
    /// group's count of steps (`TimeBox`), which every cell of the group did.
    ///
    /// Nil elsewhere.
    package var timeBoxed: Bool?
    /// True where the loop stopped short of its budget floor on its own time (`TimeBox.floor`): it did its own
    /// count of steps, fewer than its group's.
    ///
    /// Nil elsewhere.
    package var stoppedShort: Bool?
    /// For a loop under a budget floor (`TimeBox.floor`): the digest of the first steps every cell of its group
    /// did, on which a cell that stopped short of the floor is checked against the others.
    ///
    /// Nil elsewhere.
    package var prefix: DigestPrefix?
    /// True where the store answered the workload's count question from a count it maintains (O(1)) rather than
    /// by counting; nil elsewhere.
    package var maintainedCount: Bool?
    /// Where the store does other work than the rest for this workload, what it does (from `StoreKind.workNotes`):
    /// shown in its cells.
    ///
    /// Nil elsewhere.
    package var workNote: String?
}
