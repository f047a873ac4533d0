import Foundation

/// What `verify` found in a kept store's directory.
package struct StoreVerification: Sendable {
    /// What the open's recovery did (`IntegrityCheckingStore.recoveryNotes`).
    package var recovered: [String] = []
    /// Every problem found, one line each (a failed open or read among them); empty when the store is sound.
    package var problems: [String] = []
    /// The items read, when sound.
    package var items = 0

    /// Opens the store of `kind` in `directory`, runs its integrity check and reads every item. Bad input when the
    /// kind has no integrity check or the directory is missing or empty.
    package init(_ kind: StoreKind, directory: URL) throws {
        guard kind.type is any IntegrityCheckingStore.Type else {
            throw BadInput("\(kind.name) has no integrity check")
        }
        guard let contents = try? FileManager.default.contentsOfDirectory(atPath: directory.path), !contents.isEmpty
        else { throw BadInput("'\(directory.path)' is not a store directory (missing or empty)") }
        do {
            guard let opened = try kind.open(directory) as? any IntegrityCheckingStore else {
                throw BadInput("\(kind.name) has no integrity check")
            }
            defer { try? opened.close() }
            recovered = opened.recoveryNotes
            problems = try opened.integrityProblems().map(\.description)
            if problems.isEmpty { try opened.forEachItem { _ in items += 1 } }
        } catch let error as BadInput {
            throw error
        } catch {
            problems.append("\(error)")
        }
    }
}
