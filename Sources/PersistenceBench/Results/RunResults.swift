import Foundation

// MARK: - The run

/// Everything a run produced: written to results.json after every cell, read back by `persistbench report`.
package struct RunResults: Codable, Equatable, Sendable {
    /// Bumped whenever a field changes meaning or disappears; readers should check it.
    package static let currentSchemaVersion = 1

    package var schemaVersion: Int
    package var environment: RunEnvironment
    package var configuration: RunConfiguration
    package var startedAt: Date
    /// Set when the run finished; nil while it runs or if it was interrupted.
    package var finishedAt: Date?
    package var cells: [CellResult]
    /// In a run merged from shards (`merge`), each shard's machine, times and groups; nil for a run made in one go.
    ///
    /// `environment` is then the first shard's.
    package var shards: [ShardRun]?
    /// The machines other than `environment`'s that a run was resumed on (`run --resume` on another boot), each
    /// once, in the order they joined; nil where one machine ran every cell.
    ///
    /// Each cell names its own (`bootID`).
    package var resumedOn: [RunEnvironment]?
    /// Runs of the same build and seed under memory caps, joined by `merge --capped` for the budget table's memory
    /// columns; nil where none was.
    package var cappedRuns: [CappedRun]?
    /// Per (workload, scale) whose stores disagreed, the first answer that differs, found by asking again
    /// (`AnswerDifference`); nil where all agreed or nothing was asked again.
    package var answerDifferences: [AnswerDifference]?

    package init(environment: RunEnvironment, configuration: RunConfiguration, startedAt: Date) {
        schemaVersion = Self.currentSchemaVersion
        self.environment = environment
        self.configuration = configuration
        self.startedAt = startedAt
        finishedAt = nil
        cells = []
    }

    /// Digest agreement for every (workload, scale) with at least one finished cell.
    package var digestChecks: [DigestCheck] { DigestCheck.checks(of: cells) }

    /// The stores that have cells, in the configuration's order (the order of `--stores`), whatever order their
    /// cells ran in (`StoreShuffle` shuffles it), then any store the configuration does not name: the order reports
    /// list stores in.
    package var stores: [String] {
        var present = Set(cells.map(\.store))
        let configured = configuration.stores.filter { present.remove($0) != nil }
        var rest: [String] = []
        for cell in cells where present.remove(cell.store) != nil { rest.append(cell.store) }
        return configured + rest
    }

    /// A digest mismatch or a cell error fails a run; with `strict`, so does a cell that did not finish.
    package func failed(strict: Bool) -> Bool {
        digestChecks.contains { !$0.agreed } || cells.contains { $0.status == .error }
            || (strict && cells.contains { $0.status == .dnf })
    }

    // MARK: - Reading

    /// Reads the results a command names: `path` is a run's directory or its results.json; every failure is bad
    /// input.
    package static func load(named path: String) throws -> RunResults {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw BadInput("no such file or directory: '\(path)'")
        }
        let url = URL(fileURLWithPath: path)
        let file = isDirectory.boolValue ? url.appendingPathComponent("results.json") : url
        do { return try load(from: file) } catch { throw BadInput("\(error)") }
    }

    /// The interrupted run in the directory `path` (`run --resume`): bad input when it is no directory or holds no
    /// readable results.json.
    ///
    /// The directory is never made here.
    package static func interrupted(in path: String) throws -> RunResults {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw BadInput("cannot resume '\(path)': no such directory")
        }
        do { return try load(from: URL(fileURLWithPath: path).appendingPathComponent("results.json")) } catch {
            throw BadInput("cannot resume '\(path)': \(error)")
        }
    }

    /// Reads a results.json, checking its schema version.
    package static func load(from url: URL) throws -> RunResults {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw BenchError("cannot read \(url.path): \(FileSystem.cause(of: error))")
        }
        return try decode(data, path: url.path)
    }

    /// A results file's `data` (named `path` in errors), decoded.
    package static func decode(_ data: Data, path: String) throws -> RunResults {
        let url = URL(fileURLWithPath: path)
        struct Version: Decodable { var schemaVersion: Int }
        guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
            throw BenchError("\(url.path) is not a PersistenceBench results file: not a JSON object")
        }
        guard let version = try? JSONDecoder().decode(Version.self, from: data) else {
            throw BenchError("\(url.path) is not a PersistenceBench results file: no schemaVersion")
        }
        guard version.schemaVersion == currentSchemaVersion else {
            throw BenchError(
                "\(url.path) has schema version \(version.schemaVersion); this tool reads \(currentSchemaVersion)")
        }
        do { return try decoder.decode(RunResults.self, from: data) } catch let error as DecodingError {
            throw BenchError("\(url.path) is malformed: \(Self.describe(error))")
        } catch {
            throw BenchError("\(url.path) is malformed: \(error)")
        }
    }

    /// A decoding error in one line: what was wrong, and where (`cells[3].metrics.digest`).
    package static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : text.isEmpty ? "the top level" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "no '\(key.stringValue)' in \(path(context.codingPath))"
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)) is null"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) is not \(type == String.self ? "a string" : "a \(type)")"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    // MARK: - Writing

    package func jsonData() throws -> Data { try Self.encoder.encode(self) }

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    fileprivate static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    enum CodingKeys: String, CodingKey {
        case schemaVersion, environment, configuration, startedAt, finishedAt, cells, digestChecks, shards, resumedOn
        case cappedRuns, answerDifferences
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try c.decode(Int.self, forKey: .schemaVersion)
        environment = try c.decode(RunEnvironment.self, forKey: .environment)
        configuration = try c.decode(RunConfiguration.self, forKey: .configuration)
        startedAt = try c.decode(Date.self, forKey: .startedAt)
        finishedAt = try c.decodeIfPresent(Date.self, forKey: .finishedAt)
        cells = try c.decode([CellResult].self, forKey: .cells)
        shards = try c.decodeIfPresent([ShardRun].self, forKey: .shards)
        resumedOn = try c.decodeIfPresent([RunEnvironment].self, forKey: .resumedOn)
        cappedRuns = try c.decodeIfPresent([CappedRun].self, forKey: .cappedRuns)
        answerDifferences = try c.decodeIfPresent([AnswerDifference].self, forKey: .answerDifferences)
    }

    // The digest checks are derived from the cells, and written out for readers that do not recompute them.
    package func encode(to encoder: any Encoder) throws { try encode(to: encoder, digestChecks: digestChecks) }

    fileprivate func encode(to encoder: any Encoder, digestChecks: [DigestCheck]) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schemaVersion, forKey: .schemaVersion)
        try c.encode(environment, forKey: .environment)
        try c.encode(configuration, forKey: .configuration)
        try c.encode(startedAt, forKey: .startedAt)
        try c.encodeIfPresent(finishedAt, forKey: .finishedAt)
        try c.encode(cells, forKey: .cells)
        try c.encode(digestChecks, forKey: .digestChecks)
        try c.encodeIfPresent(shards, forKey: .shards)
        try c.encodeIfPresent(resumedOn, forKey: .resumedOn)
        try c.encodeIfPresent(cappedRuns, forKey: .cappedRuns)
        try c.encodeIfPresent(answerDifferences, forKey: .answerDifferences)
    }
}

// MARK: - Writing after every cell

/// Encodes a running matrix's results.json after every cell, each cell once: the bytes `RunResults.jsonData()`
/// gives, without encoding again the cells that did not change.
///
/// Encoding the whole run after every cell grows with the square of its cells: a fifth of the parent's CPU time in a
/// run of 336 cells.
package struct IncrementalResultsEncoder {
    private var cells: [(cell: CellResult, json: [UInt8])] = []

    package init() {}

    /// results.json for `results`, encoding only the cells that are new or changed since the last call.
    package mutating func jsonData(of results: RunResults) throws -> Data {
        for (index, cell) in results.cells.enumerated() where index >= cells.count || cells[index].cell != cell {
            let json = Self.indented(Array(try RunResults.encoder.encode(cell)))
            if index < cells.count { cells[index] = (cell, json) } else { cells.append((cell, json)) }
        }
        cells.removeLast(cells.count - results.cells.count)
        var envelope = results
        envelope.cells = []
        let empty = Array(
            try RunResults.encoder.encode(Envelope(results: envelope, digestChecks: results.digestChecks)))
        // The pretty printer writes an empty array as "[", a blank line and "]" indented to its key's depth.
        let emptyCells = Array("\"cells\" : [\n\n  ]".utf8)
        guard let at = empty.firstRange(of: emptyCells) else {
            throw BenchError("results.json: the encoder wrote the cells' array in an unexpected form")
        }
        var data = Data(empty[..<at.lowerBound])
        data.append(contentsOf: Array("\"cells\" : [".utf8))
        for (index, cell) in cells.enumerated() {
            data.append(contentsOf: index == 0 ? [0x0A] : Array(",\n".utf8))
            data.append(contentsOf: cell.json)
        }
        data.append(contentsOf: Array((cells.isEmpty ? "\n\n  ]" : "\n  ]").utf8))
        data.append(contentsOf: empty[at.upperBound...])
        return data
    }

    /// The run as `RunResults.encode` writes it, its digest checks taken from all the cells, not the envelope's.
    private struct Envelope: Encodable {
        var results: RunResults
        var digestChecks: [DigestCheck]

        func encode(to encoder: any Encoder) throws {
            try results.encode(to: encoder, digestChecks: digestChecks)
        }
    }

    /// A cell's JSON as it stands in the run's `cells` array: every line but the empty ones (an empty array's)
    /// indented by four spaces.
    private static func indented(_ json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = Array("    ".utf8)
        out.reserveCapacity(json.count + json.count / 8)
        for (index, byte) in json.enumerated() {
            out.append(byte)
            if byte == 0x0A, index + 1 < json.count, json[index + 1] != 0x0A {
                out.append(contentsOf: [32, 32, 32, 32])
            }
        }
        return out
    }
}

// MARK: - The digest check

/// Whether every finished cell of one (workload, scale) read the same answers.
package struct DigestCheck: Codable, Equatable, Sendable {
    package var workload: String
    package var scale: Scale
    package var agreed: Bool
    /// Each store's distinct digests over its finished repetitions (more than one is itself a disagreement).
    package var digests: [String: [Digest]]
    /// Where the time box set the group's count of steps (`TimeBox`): that count, which every cell did, so that
    /// every answer of every cell is in the compared digests.
    ///
    /// Nil when every cell did all its workload's steps.
    package var steps: Int?
    /// Where a store stopped short of its budget floor on its own time (`TimeBox.floor`): its distinct digests of
    /// its own count of steps (more than one is a disagreement), kept out of `digests`.
    ///
    /// Nil when none did.
    package var ownSteps: [String: [Digest]]?
    /// Each store's distinct digests of the first steps every cell of the group did (`CellMetrics.prefix`), where
    /// a store stopped short: all must be one.
    ///
    /// Nil when none did.
    package var prefixes: [String: [Digest]]?

    /// Whether two or more stores' answers were compared: a group of one store's cells only checks that its
    /// repetitions agree with each other.
    package var compared: Bool { Set(digests.keys).union(ownSteps.map { Array($0.keys) } ?? []).count > 1 }

    /// One check per (workload, scale) that has finished cells, in the cells' order.
    ///
    /// Every cell is compared: a cell stopped by the time box did the same steps as every other cell of its group
    /// (`TimeBox`); a cell that stopped short of its budget floor did fewer, and is compared with every other on the
    /// first steps all did. Boxed cells of runs recorded before that rule (no `steps`) are left out.
    package static func checks(of cells: [CellResult]) -> [DigestCheck] {
        var order: [GroupID] = []
        var groups: [GroupID: [(store: String, metrics: CellMetrics)]] = [:]
        for cell in cells where cell.status == .ok {
            guard let metrics = cell.metrics else { continue }
            if groups[cell.group] == nil { order.append(cell.group) }
            groups[cell.group, default: []].append((cell.store, metrics))
        }
        return order.compactMap { id in
            var check = DigestCheck(workload: id.workload, scale: id.scale, agreed: true, digests: [:])
            let group = groups[id, default: []].filter {
                !($0.metrics.verification.timeBoxed == true && $0.metrics.verification.steps == nil)
            }
            // A store whose first repetition stopped short did its own count in every repetition (the later ones
            // without a clock, so not marked short).
            let short = Set(group.filter { $0.metrics.verification.stoppedShort == true }.map(\.store))
            var own: [String: [Digest]] = [:]
            var prefixes: [String: [Digest]] = [:]
            for (store, metrics) in group {
                if short.contains(store) {
                    own[store, default: []].appendIfAbsent(metrics.digest)
                } else {
                    check.digests[store, default: []].appendIfAbsent(metrics.digest)
                    if metrics.verification.timeBoxed == true { check.steps = metrics.verification.steps }
                }
                if !short.isEmpty, let prefix = metrics.verification.prefix?.digest {
                    prefixes[store, default: []].appendIfAbsent(prefix)
                }
            }
            if !short.isEmpty { (check.ownSteps, check.prefixes) = (own, prefixes) }
            guard !check.digests.isEmpty || check.ownSteps != nil else { return nil }
            check.agreed =
                Set(check.digests.values.joined()).count <= 1
                && (check.ownSteps ?? [:]).values.allSatisfy { $0.count <= 1 }
                && Set((check.prefixes ?? [:]).values.joined()).count <= 1
            return check
        }
    }
}

extension DigestCheck {
    /// Each store's digests: "grdb 10000:3f…; sqlite 10000:3f… / 10000:4a…".
    package var digestsDescription: String {
        func list(_ digests: [String: [Digest]]) -> String {
            digests.sorted { $0.key < $1.key }
                .map { "\($0.key) \($0.value.map(\.description).joined(separator: " / "))" }
                .joined(separator: "; ")
        }
        var description = list(digests)
        if let ownSteps { description += "; stopped short of the floor: " + list(ownSteps) }
        if let prefixes { description += "; first steps: " + list(prefixes) }
        return description
    }
}

extension Array where Element: Equatable {
    fileprivate mutating func appendIfAbsent(_ element: Element) {
        if !contains(element) { append(element) }
    }
}
