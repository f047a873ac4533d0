import Foundation
import PersistenceBench

/// After a crash: the header slots' checksums and the journal's were checked by the open; this checks what they
/// do not cover. Every committed row: flag bits and padding zero, ids positive and unique (ascending where the
/// header says so), strings inside the arena's committed bytes, its checksum against its fields and strings; the
/// header's per-filter counts against the live rows. (Rows an append's slot vouches for but its commit did not write
/// are the open's to find: `recover()` checks them against the commit's counts and opens to the commit before.)
/// The page order index, when the open trusts one, against the live rows it orders.
extension PackedItemStore: IntegrityCheckingStore {
    /// Damaged rows reported one by one, before the rest are counted in one line.
    static let rowProblemsListed = 5

    package func checkIntegrity() throws {
        let problems = try integrityProblems()
        guard let first = problems.first else { return }
        if problems.count == 1 { throw first }
        throw DamagedStore(
            file: first.file, place: first.place, problem: first.problem + " (and \(problems.count - 1) more problems)")
    }

    package func integrityProblems() throws -> [DamagedStore] {
        let view = self.view
        let path = view.arenaPath.replacingOccurrences(of: "strings.arena", with: "items.rows")
        var problems: [DamagedStore] = []
        var damagedRows = 0
        var counts = [Int](repeating: 0, count: 8)
        var seen = Set<Int64>()
        var previous: Int64 = 0
        for index in 0..<state.rowCount {
            let offset = StoreHeader.rowsStart + index * ItemRow.size
            var problem = view.damage(ofRow: index, arenaLength: state.arenaLength)
            let row = view.row(index)
            if problem == nil, !seen.insert(row.id).inserted { problem = "id \(row.id) repeated" }
            if problem == nil, state.rowsAscendByID {
                if row.id <= previous { problem = "id \(row.id) after \(previous): ids must ascend" }
                previous = row.id
            }
            if let problem {
                damagedRows += 1
                if damagedRows <= Self.rowProblemsListed {
                    problems.append(DamagedStore(file: path, place: "byte \(offset) (row \(index))", problem: problem))
                }
                continue
            }
            if !view.isDeleted(index) { counts[row.filterKey] += 1 }
        }
        if damagedRows > Self.rowProblemsListed {
            problems.append(
                DamagedStore(file: path, problem: "\(damagedRows - Self.rowProblemsListed) more damaged rows"))
        }
        if damagedRows == 0, let order, let problem = order.damage(against: view, rowCount: state.rowCount) {
            problems.append(
                DamagedStore(file: generation.appendingPathComponent(OrderIndex.fileName).path, problem: problem))
        }
        if counts != state.counts {
            problems.append(
                DamagedStore(
                    file: path, place: "the header",
                    problem: "per-filter counts \(state.counts), rows hold \(counts)"))
        }
        return problems
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

// MARK: - Before an open

extension PackedItemStore {
    /// `CURRENT` and the four files of the generation it names (`g1` when it names none).
    package static func storeFiles(in directory: URL, kind: String) -> StoreFiles {
        let named = (try? String(contentsOf: directory.appendingPathComponent("CURRENT"), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let generation = named.flatMap { $0.hasPrefix("g") && Int($0.dropFirst()) != nil ? $0 : nil } ?? "g1"
        return StoreFiles(
            data: ["CURRENT"]
                + dataFileNames.map { "\(generation)/\($0)" })
    }
}
