import PersistenceBench

/// After a crash: the header slots' checksums and the journal's were checked by the open; this checks what they
/// do not cover. Every committed row: flag bits and padding zero, ids positive and unique (ascending where the
/// header says so), strings inside the arena's committed bytes, its checksum against its fields and strings; and
/// the header's per-filter counts against the live rows.
extension PackedItemStore: IntegrityCheckingStore {
    package func checkIntegrity() throws {
        let view = self.view
        let path = view.arenaPath.replacingOccurrences(of: "strings.arena", with: "items.rows")
        var counts = [Int](repeating: 0, count: 8)
        var seen = Set<Int64>()
        var previous: Int64 = 0
        for index in 0..<state.rowCount {
            let offset = StoreHeader.rowsStart + index * ItemRow.size
            func damage(_ problem: String) -> DamagedStore {
                DamagedStore(file: path, place: "byte \(offset) (row \(index))", problem: problem)
            }
            if let problem = view.damage(ofRow: index, arenaLength: state.arenaLength) { throw damage(problem) }
            let row = view.row(index)
            guard seen.insert(row.id).inserted else { throw damage("id \(row.id) repeated") }
            if state.rowsAscendByID {
                guard row.id > previous else { throw damage("id \(row.id) after \(previous): ids must ascend") }
                previous = row.id
            }
            if !view.isDeleted(index) { counts[row.filterKey] += 1 }
        }
        guard counts == state.counts else {
            throw DamagedStore(
                file: path, place: "the header", problem: "per-filter counts \(state.counts), rows hold \(counts)")
        }
    }
}

extension PackedItemStore.MappedView {
    /// What is wrong with row `index` on its own, or nil: flag or padding bits set, an id not positive, a string
    /// outside the first `arenaLength` bytes of the arena, or a checksum that does not match its fields and strings.
    func damage(ofRow index: Int, arenaLength: Int) -> String? {
        let offset = StoreHeader.rowsStart + index * ItemRow.size
        let row = row(index)
        guard row.flags & ~0b111 == 0, (41..<44).allSatisfy({ rows[offset + $0] == 0 }) else {
            return "flag or padding bits set"
        }
        guard row.id > 0 else { return "id \(row.id) not positive" }
        for reference in [row.title, row.notes] {
            guard reference.offset >= FileMagic.headerSize, reference.offset <= arenaLength,
                reference.length <= arenaLength - reference.offset
            else {
                return "a string at \(reference.offset)..<\(reference.offset + reference.length) of \(arenaLength) "
                    + "committed arena bytes"
            }
        }
        func bytes(_ reference: ItemRow.StringReference) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: arena[reference.offset..<reference.offset + reference.length])
        }
        guard row.checksum == row.checksum(title: bytes(row.title), notes: bytes(row.notes)) else {
            return "its checksum does not match its fields and strings"
        }
        return nil
    }
}
