import Foundation
import PersistenceBench

/// After a crash: the open decoded the whole document (a torn or flipped file fails there) and checked what the heap
/// structures rely on (`load`); this checks the one reference it does not: every team's sport is stored.
extension MemoryItemStore: IntegrityCheckingStore {
    package func checkIntegrity() throws {
        let sportIDs = Set(sports.map(\.id))
        if let team = teams.first(where: { !sportIDs.contains($0.sportID) }) {
            throw DamagedStore(
                file: file.path, place: "team \(team.id)", problem: "its sport \(team.sportID) is not stored")
        }
    }
}

extension MemoryItemStore {
    /// One file: `store.json` or `store.plist` for a document, `memory`'s dump otherwise.
    package static func storeFiles(in directory: URL, kind: String) -> StoreFiles {
        StoreFiles(data: [DocumentFormat(rawValue: kind)?.fileName ?? dumpName])
    }
}
