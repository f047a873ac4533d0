import PersistenceBench

/// After a crash: the header slots' checksums and the journal's were checked by the open; this checks what they
/// do not cover. Every committed row: flag bits and padding zero, ids positive and unique (ascending where the
/// header says so), strings inside the arena's committed bytes, its checksum against its fields and strings; and
/// the header's per-filter counts against the live rows.
extension PackedItemStore: IntegrityCheckingStore {
    public func checkIntegrity() throws {
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
            let row = view.row(index)
            guard row.flags & ~0b111 == 0, (41..<44).allSatisfy({ view.rows[offset + $0] == 0 }) else {
                throw damage("flag or padding bits set")
            }
            guard row.id > 0, seen.insert(row.id).inserted else {
                throw damage("id \(row.id) repeated or not positive")
            }
            if state.rowsAscendByID {
                guard row.id > previous else { throw damage("id \(row.id) after \(previous): ids must ascend") }
                previous = row.id
            }
            for reference in [row.title, row.notes] {
                guard reference.offset >= FileMagic.headerSize, reference.offset <= state.arenaLength,
                    reference.length <= state.arenaLength - reference.offset
                else {
                    throw damage(
                        "a string at \(reference.offset)..<\(reference.offset + reference.length) of "
                            + "\(state.arenaLength) committed arena bytes")
                }
            }
            func bytes(_ reference: ItemRow.StringReference) -> UnsafeRawBufferPointer {
                UnsafeRawBufferPointer(rebasing: view.arena[reference.offset..<reference.offset + reference.length])
            }
            guard row.checksum == row.checksum(title: bytes(row.title), notes: bytes(row.notes)) else {
                throw damage("its checksum does not match its fields and strings")
            }
            if !view.isDeleted(index) { counts[row.filterKey] += 1 }
        }
        guard counts == state.counts else {
            throw DamagedStore(
                file: path, place: "the header", problem: "per-filter counts \(state.counts), rows hold \(counts)")
        }
    }
}
