import Foundation
import PersistenceBench

#if canImport(Glibc)
    import Glibc
#endif

/// After a crash: the open finishes a batch its journal names and removes files never put in place (`recover()`);
/// the check then reads every file: each named by an id, holding that item, and nothing else in the directory.
extension FileItemStore {
    public func checkIntegrity() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: items.path).sorted() {
            let path = "items/\(name)"
            guard name.hasSuffix(".json"), let id = Int64(name.dropLast(5)) else {
                throw DamagedStore(file: path, problem: "not an item's file (a journal or a new file the open left)")
            }
            try DamagedStore.checking(path) {
                guard let item = try self.item(id: id) else {
                    throw DamagedStore(file: path, problem: "went away while read")
                }
                guard item.id == id else { throw DamagedStore(file: path, problem: "holds item \(item.id)") }
            }
        }
    }

    /// A directory of files, none of which must be there (an empty store has none): `items/` marks the store.
    public static func storeFiles(in directory: URL, kind: String) -> StoreFiles {
        StoreFiles(data: [], traces: ["items"])
    }

    /// Finishes the batch a journal names, if its journal is whole (a journal cut short was never flushed: its batch
    /// never began), then removes new files no batch put in place.
    func recover() throws {
        if let data = FileManager.default.contents(atPath: journal.path) {
            if let batch = try? decoder.decode(Journal.self, from: data) {
                try apply(batch, finishing: true)
                try flush(items)
                recoveryNotes.append(
                    "finished a batch of \(batch.written.count) writes and \(batch.deleted.count) deletions its "
                        + "journal named")
            } else {
                recoveryNotes.append("dropped a journal cut short (\(data.count) bytes): its batch never began")
            }
            guard unlink(journal.path) == 0 else { throw FileStoreError("removing \(journal.path): \(systemReason())") }
            try flush(items)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: items.path).filter { $0.hasSuffix(".new") }
        for name in leftovers where unlink(items.appendingPathComponent(name).path) != 0 {
            throw FileStoreError("removing items/\(name): \(systemReason())")
        }
        if !leftovers.isEmpty {
            try flush(items)
            recoveryNotes.append("removed \(leftovers.count) new file(s) no committed batch put in place")
        }
    }
}
