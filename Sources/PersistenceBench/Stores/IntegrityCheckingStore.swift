/// A store that can check its own files after a crash: what `persistbench crash` and `verify` run after reopening.
public protocol IntegrityCheckingStore: ConcurrentReadStore {
    /// Checks the store's files with the store's own means (SQLite's `PRAGMA integrity_check`, a walk of every
    /// LMDB database, `packed`'s checksums and bounds) and throws a `DamagedStore` naming the file and the place
    /// of the first damage found.
    func checkIntegrity() throws
}

/// Damage an integrity check found: the file, where in it (a byte offset, or a page), and what.
public struct DamagedStore: Error, CustomStringConvertible, Sendable {
    public let file: String
    public let place: String?
    public let problem: String

    public init(file: String, place: String? = nil, problem: String) {
        self.file = file
        self.place = place
        self.problem = problem
    }

    public var description: String { "\(file)\(place.map { " at \($0)" } ?? ""): \(problem)" }
}

/// What a store promises to keep when its process is killed or the machine loses power, as `persistbench crash`
/// checks it.
public enum DurabilityPromise: String, Codable, Sendable {
    /// Every transaction whose commit returned survives a kill and a power cut.
    case everyCommit
    /// Every committed transaction survives a kill; a power cut may lose the last ones, never part of one, and
    /// never corrupts (SQLite's WAL with `synchronous=NORMAL`, LMDB's `MDB_NOMETASYNC`).
    case committedPrefix
    /// Every committed transaction survives a kill; a power cut may lose or damage anything written since the last
    /// clean close (a store that never flushes while it runs: `packed+nosync`).
    case survivesKills
    /// Nothing survives the process (the harness floor).
    case nothing

    public var summary: String {
        switch self {
        case .everyCommit: "every committed transaction survives a kill and a power cut"
        case .committedPrefix:
            "every committed transaction survives a kill; a power cut may lose the last ones, never corrupts"
        case .survivesKills:
            "every committed transaction survives a kill; a power cut may lose or damage anything since the last "
                + "clean close"
        case .nothing: "nothing survives the process"
        }
    }
}

extension DamagedStore {
    /// The damage SQLite's `PRAGMA integrity_check` reported in `file` (nil for its "ok"), placed at the first page
    /// a line names ("Page 5: …", "On tree page 12 …"), as a page and its byte offset.
    public static func sqlite(file: String, integrityCheck lines: [String], pageSize: Int) -> DamagedStore? {
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

extension DamagedStore {
    /// Runs a check of `file`; an error it throws that is not already a `DamagedStore` (an engine's "malformed"
    /// error in the middle of the check) becomes one naming the file.
    public static func checking(_ file: String, _ body: () throws -> Void) throws {
        do { try body() } catch let damage as DamagedStore { throw damage } catch {
            throw DamagedStore(file: file, problem: "\(error)")
        }
    }
}
