import Foundation
import PersistenceBench

/// `json` and `plist`: what an app does with `JSONEncoder` or `PropertyListEncoder` and one file.
///
/// Everything the store holds is one Codable value, decoded whole at open into the heap structures `memory` answers
/// from, and encoded whole at every commit, written by an atomic replace: a temporary file written and fsynced, renamed
/// over the document, the directory fsynced. A commit costs O(N) whatever it changed; reads cost what `memory`'s do.
package enum DocumentFormat: String, CaseIterable, Sendable {
    case json, plist

    var fileName: String { "store.\(rawValue)" }

    package var kind: StoreKind {
        let format = self
        let encoder =
            switch self {
            case .json: "JSONEncoder (default strategies: dates as seconds since 2001, compact output)"
            case .plist: "PropertyListEncoder with the binary format"
            }
        return StoreKind(
            name: rawValue,
            summary: "one Codable document (\(self == .json ? "JSONEncoder" : "PropertyListEncoder, binary")) decoded "
                + "whole at open, written whole by every commit; reads answered from the heap, as memory's",
            durability: "every commit writes the whole document to a temporary file, fsyncs it, renames it over "
                + "the old one and fsyncs the directory; a bulk load commits once, at its end",
            configuration: "\(encoder); \(fileName), Foundation's encoder as shipped with the toolchain",
            engine: { "Foundation \(format == .json ? "JSONEncoder" : "PropertyListEncoder") (Swift toolchain)" },
            // The same strategy as `json` with another encoder: measured when named.
            inclusion: self == .json ? .defaultRun : .variant, workNotes: Self.workNotes, type: MemoryItemStore.self,
            open: { try MemoryItemStore(directory: $0, persistence: .document(format)) })
    }

    /// A bulk load writes the document once, where the other stores commit every batch; reads are `memory`'s code.
    static let workNotes: [String: String] = {
        let reads = [
            "get", "get-warm", "get-zipfian", "get-batch", "get-batch-loop", "scan", "count-where", "count-range",
        ]
        var notes = Dictionary(
            uniqueKeysWithValues: reads.map {
                ($0, "answered from the heap decoded at open: memory's code (an array indexed by id)")
            })
        // `memory`'s dump keeps its page orders; the document keeps the items only.
        notes["page"] =
            "answered from the heap decoded at open, but the document keeps no page order: the first page after "
            + "open sorts every priority's items (O(N log N), the latency's max), the later ones are memory's code"
        notes["insert"] = "the whole document written once, at the end of the load, not one commit per batch"
        return notes
    }()

    func encode(_ document: Document) throws -> Data {
        switch self {
        case .json: return try JSONEncoder().encode(document)
        case .plist:
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            return try encoder.encode(document)
        }
    }

    func decode(_ data: Data) throws -> Document {
        switch self {
        case .json: try JSONDecoder().decode(Document.self, from: data)
        case .plist: try PropertyListDecoder().decode(Document.self, from: data)
        }
    }
}

/// Everything a heap store holds, as the Codable value `json` and `plist` write (and `memory`'s dump lays out).
struct Document: Codable {
    var items: [Item] = []
    var titlesAreUnique = false
    var sports: [Sport] = []
    var teams: [Team] = []
    var houses: [House] = []
    /// Every distinct call stack once; samples name theirs by index.
    var stacks: [[UInt64]] = []
    var samples: [StoredSample] = []
    /// The records of a shape (`+Records`), when the store holds some.
    var records: RecordsDocument?
}

/// A profile sample as stored: its call stack by index into the document's stacks.
struct StoredSample: Codable {
    var timestamp: Int64
    var pid: Int32
    var tid: Int32
    var stack: Int32
}

extension MemoryItemStore {
    /// The store's contents as one value.
    func document() -> Document {
        Document(
            items: slots.compactMap { $0 }, titlesAreUnique: uniqueTitles != nil, sports: sports, teams: teams,
            houses: houses.compactMap { $0 }, stacks: stacks, samples: samples,
            records: recordTable.map { RecordsDocument(shape: $0.shape, records: $0.slots.compactMap { $0 }) })
    }

    /// Writes the whole document: encoded, then replaced atomically and durably.
    func write(_ format: DocumentFormat) throws {
        try FileSystem.writeDurably(format.encode(document()), to: file)
    }

    /// Fills an empty store from a decoded document, checking what the heap structures rely on: ids positive and
    /// unique, titles unique where the document says so, call stacks distinct, every sample's stack present and
    /// samples in time order.
    ///
    /// A document that fails is damaged; `checkIntegrity` checks the rest.
    func load(_ document: Document) throws {
        try insert(document.items)
        if document.titlesAreUnique {
            let titles = Set(document.items.map(\.title))
            guard titles.count == document.items.count else {
                throw BenchError(
                    "\(file.path): titles are marked unique but \(document.items.count - titles.count) repeat")
            }
            uniqueTitles = titles
        }
        try insert(sports: document.sports)
        try insert(teams: document.teams)
        try insert(houses: document.houses)
        for (index, stack) in document.stacks.enumerated() {
            guard !stack.isEmpty, stackIDs.updateValue(Int32(index), forKey: stack) == nil else {
                throw BenchError("\(file.path): call stack \(index) is empty or repeats another")
            }
        }
        stacks = document.stacks
        var previous = Int64.min
        for sample in document.samples {
            guard sample.timestamp > previous, sample.stack >= 0, Int(sample.stack) < stacks.count else {
                throw BenchError("\(file.path): sample at \(sample.timestamp) is out of order or names no stack")
            }
            previous = sample.timestamp
        }
        samples = document.samples
        if let records = document.records { try load(records) }
    }
}
