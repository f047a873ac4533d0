import PersistenceBench

extension DamagedStore {
    /// The damage SQLite's `PRAGMA integrity_check` reported in `file` (nil for its "ok"), placed at the first page
    /// a line names ("Page 5: …", "On tree page 12 …"), as a page and its byte offset.
    package static func sqlite(file: String, integrityCheck lines: [String], pageSize: Int) -> DamagedStore? {
        guard lines != ["ok"], !lines.isEmpty else { return nil }
        var place: String?
        for line in lines {
            let words = line.split(whereSeparator: { $0 == " " || $0 == ":" })
            if let index = words.firstIndex(where: { $0.lowercased() == "page" }), index + 1 < words.count,
                let page = Int(words[index + 1]), page >= 1
            {
                place = "page \(page) (byte \((page - 1) * pageSize))"
                break
            }
        }
        return DamagedStore(file: file, place: place, problem: lines.joined(separator: "; "))
    }
}
