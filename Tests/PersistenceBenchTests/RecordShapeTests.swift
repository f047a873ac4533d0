import Foundation
import Testing

@testable import PersistBenchTool
@testable import PersistenceBench

/// The stores that answer records of a shape (`run --shape`).
let recordStoreNames = allStoreKinds.filter { $0.type is any RecordStore.Type }.map(\.name)
/// One store of each strategy that answers records, and the variants that keep blobs as files.
let recordStrategyNames = storeNames(
    running: ShapedWorkload(.scan, shape: everyTypeShape), adding: ["sqlite+files", "orm+external"])

/// A shape of every field type, a bool filter and a date sort, with sizes small enough for a test.
let everyTypeShape = RecordShape(
    name: "every-type",
    fields: [
        RecordField("count", .integer, indexed: true, minimum: -5, maximum: 5),
        RecordField("ratio", .double),
        RecordField("done", .bool),
        RecordField("at", .date),
        RecordField("label", .text, indexed: true, minimum: 0, maximum: 30),
        RecordField("photo", .blob, minimum: 0, maximum: 300_000, sizes: .uniform),
        RecordField("notes", .text, minimum: 1, maximum: 3_000, sizes: .logUniform),
    ],
    pageFilter: "done", pageSort: "at")

/// Every store round-trips every shape: each workload's digest is the one computed from the generator alone.
@Suite struct RecordShapeTests {
    static let scale = 24

    /// The digests the six workloads must give for `shape` at `scale`, from the generator: what every store's
    /// answers and contents are compared with.
    static func expectedDigests(_ shape: RecordShape, scale: Int, seed: UInt64 = 42) -> [String: Digest] {
        let generator = RecordGenerator(shape: shape, seed: seed)
        func digest(_ records: [Record]) -> Digest {
            var digest = Digest()
            for record in records { digest.add(record) }
            return digest
        }
        let stored = generator.records(1...Int64(scale))
        var get = Digest()
        for key in GetWorkload.keys(scale: scale, seed: seed, distribution: .uniform) {
            get.add(answer: generator.record(id: key))
        }
        var updated = stored
        let total = scale / 10
        let permutation = SeededPermutation(count: scale, seed: seed, stream: .updateSelection)
        for position in 0..<total {
            let id = Int64(permutation[position] + 1)
            generator.update(id: id).apply(to: &updated[Int(id) - 1])
        }
        var page = Digest()
        for query in generator.pageQueries(count: PageWorkload.queryCount) {
            let matching = stored.filter { $0.values[shape.filterIndex] == query.filter }.sorted {
                RecordPageQuery.areInIncreasingOrder(
                    ($0.values[shape.sortIndex], $0.id), ($1.values[shape.sortIndex], $1.id))
            }
            page.add(digest(Array(matching.dropFirst(query.offset).prefix(query.limit))))
        }
        let each = generator.records(1...Int64(scale + min(scale, 10_000)))
        return [
            "insert": digest(stored), "scan": digest(stored), "get": get, "update": digest(updated), "page": page,
            "insert-each": digest(each),
        ]
    }

    static func check(_ shape: RecordShape, on name: String) throws {
        let expected = expectedDigests(shape, scale: scale)
        for operation in ShapedWorkload.Operation.allCases {
            let directory = try TemporaryDirectory()
            let metrics = try measureCell(
                ShapedWorkload(operation, shape: shape), on: try storeKind(name), in: directory.url, scale: scale,
                batchSize: 7, shape: shape)
            #expect(metrics.digest == expected[operation.rawValue], "\(name) \(operation.rawValue) of \(shape.name)")
        }
    }

    @Test(arguments: recordStrategyNames, RecordShape.presets + [everyTypeShape])
    func everyStrategyAnswersEveryShape(store name: String, shape: RecordShape) throws {
        try Self.check(shape, on: name)
    }

    /// Every variant too, on the shape of every field type.
    @Test(arguments: recordStoreNames.filter { !recordStrategyNames.contains($0) })
    func everyVariantAnswersEveryFieldType(store name: String) throws {
        try Self.check(everyTypeShape, on: name)
    }

    /// A reopened store reads back what it held, with the shape kept by its files, documents or schema.
    @Test(arguments: recordStrategyNames)
    func recordsSurviveAReopen(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        let records = RecordGenerator(shape: everyTypeShape, seed: 3).records(1...9)
        let store = try kind.open(directory.url)
        let table = try #require(store as? any RecordStore).records(of: everyTypeShape)
        try table.insert(Array(records.prefix(5)))
        try store.finishInserting()
        for record in records.dropFirst(5) { try table.insertDurably(record) }
        try store.close()
        let reopened = try kind.open(directory.url)
        defer { try? reopened.close() }
        var found: [Record] = []
        try #require(reopened as? any RecordStore).records(of: everyTypeShape).forEachRecord { found.append($0) }
        #expect(found == records)
    }

    /// The presets and a shape file give the sizes they say, from the seed alone.
    @Test func generatorFillsEveryShapeFromTheSeed() throws {
        for shape in RecordShape.presets + [everyTypeShape] {
            let generator = RecordGenerator(shape: shape, seed: 42)
            for id in Int64(1)...50 {
                let record = generator.record(id: id)
                #expect(record == RecordGenerator(shape: shape, seed: 42).record(id: id))
                #expect(record.values.count == shape.fields.count)
                for (index, field) in shape.fields.enumerated() where field.type.isSized {
                    #expect((field.minimum...field.maximum).contains(record.values[index].byteCount))
                    #expect(record.values[index].byteCount == generator.sizes(id: id)[index])
                }
            }
        }
        let sizes = (Int64(1)...2_000).map { RecordGenerator(shape: .attachment, seed: 1).payloadBytes(id: $0) }
        // Log-uniform over 10 KB–1 MB: as many of 10–100 KB as of 100 KB–1 MB.
        let small = sizes.filter { $0 <= 100_000 }.count
        #expect((800...1_200).contains(small), "\(small) of 2000 at most 100 KB")
        #expect(RecordShape.wide.fields.count == 40)
    }

    /// A custom shape file runs end to end, and its records' digests agree across stores.
    @Test(.tags(.endToEnd), .timeLimit(.minutes(3)))
    func customShapeFileRunsEndToEnd() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("note.json")
        try Data(
            """
            {"name": "note", "fields": [
              {"name": "title", "type": "text", "min": 5, "max": 60, "indexed": true},
              {"name": "pinned", "type": "bool"},
              {"name": "body", "type": "text", "min": 100, "max": 20000, "distribution": "log-uniform"},
              {"name": "thumbnail", "type": "blob", "min": 1000, "max": 120000}
            ], "page": {"filter": "pinned", "sort": "title"}}
            """.utf8
        ).write(to: file)
        let out = directory.url.appendingPathComponent("out")
        let run = try runTool([
            "run", "--shape", file.path, "--stores", "sqlite,sqlite+files,lmdb,packed,memory", "--scales", "40",
            "--repetitions", "1", "--out", out.path,
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("Digests agree: 6 (workload, scale) groups compared across stores"))
        let results = try RunResults.load(named: out.path)
        #expect(results.configuration.shape?.name == "note")
        let report = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(report.contains("Records of shape `note`"))
        // The thumbnail (uniform over 1–120 KB) is the payload: four classes at its quartiles, each with its n.
        #expect(report.contains("[GET 90.2 KB–120 KB]"), "\(report)")
        #expect(report.contains("[INSERT 1 KB–30.8 KB]"), "\(report)")
        // Every loop of steps over records has its harness floor, as items' do.
        for workload in ["get", "insert-each", "page"] {
            let cells = results.cells.filter { $0.workload == workload }
            #expect(!cells.isEmpty && cells.allSatisfy { $0.metrics?.phase.harnessSeconds != nil }, "\(workload)")
        }
    }

    /// A payload's size classes are its distribution's quartiles: a quarter of the records each, SQLite's 100 KB
    /// crossing on a boundary of `attachment`'s, one class for a payload of one size.
    @Test func sizeClassesSplitAtThePayloadsQuartiles() throws {
        let classes = try #require(SizeClasses(.attachment))
        #expect(classes.upperBounds == [31_623, 100_000, 316_228, 1_000_000])
        #expect(
            classes.kinds("GET").map(\.rawValue) == [
                "GET 10 KB–31.6 KB", "GET 31.6 KB–100 KB", "GET 100 KB–316 KB", "GET 316 KB–1 MB",
            ])
        let generator = RecordGenerator(shape: .attachment, seed: 1)
        var counts = [0, 0, 0, 0]
        for id in Int64(1)...4_000 { counts[classes.index(bytes: generator.payloadBytes(id: id))] += 1 }
        #expect(counts.allSatisfy { (850...1_150).contains($0) }, "\(counts)")
        #expect(SizeClasses(.document)?.upperBounds == [4_472, 10_000, 22_361, 50_000])
        let fixed = SizeClasses(RecordField("data", .blob, minimum: 50_000, maximum: 50_000))
        #expect(fixed.kinds("GET").map(\.rawValue) == ["GET 50 KB"])
        #expect(SizeClasses(.event) == nil)
    }

    @Test(
        arguments: [
            (#"{"name": "x", "fields": []}"#, "'fields': a list of at least one field is needed"),
            (
                #"{"name": "x", "fields": [{"name": "a", "type": "integr"}], "page": {"filter": "a", "sort": "a"}}"#,
                "field 'a': 'type' must be one of integer"
            ),
            (
                #"{"name": "x", "fields": [{"name": "a", "type": "text", "min": 9, "max": 3}], "page": {"filter": "a", "sort": "a"}}"#,
                "field 'a': 'max' (3) is below 'min' (9)"
            ),
            (
                #"{"name": "x", "fields": [{"name": "a", "type": "integer"}, {"name": "b", "type": "blob"}], "page": {"filter": "a", "sort": "b"}}"#,
                "page: sort 'b' must not be a blob"
            ),
            (
                #"{"name": "x", "fields": [{"name": "a", "type": "double"}], "page": {"filter": "a", "sort": "a"}}"#,
                "page: filter 'a' is a double; it must be an integer or a bool"
            ),
            (
                #"{"name": "x", "fields": [{"name": "a", "type": "bool", "max": 3}], "page": {"filter": "a", "sort": "a"}}"#,
                "field 'a': 'max' does not apply to a bool"
            ),
            (
                #"{"name": "x", "fields": [{"name": "a", "type": "integer", "min": "low"}], "page": {"filter": "a", "sort": "a"}}"#,
                "field 'a': 'min' must be a whole number"
            ),
            (
                #"{"name": "x", "fields": [{"name": "id", "type": "integer"}], "page": {"filter": "id", "sort": "id"}}"#,
                "field 'id': every record has an id already"
            ),
            ("not json", "not a JSON object"),
        ])
    func badShapeFileIsRejectedWithItsField(json: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("shape.json")
        try Data(json.utf8).write(to: file)
        let (status, line) = try #require(
            answer(to: ["run", "--shape", file.path, "--dry-run"]), "\(json) was accepted")
        #expect(status == 2)
        #expect(line.contains("shape file \(file.path): \(message)"), "\(line)")
        #expect(!line.contains("\n"))
    }

    @Test(
        arguments: [
            (["run", "--shape", "photo"], "unknown shape 'photo': a preset (item, wide, document, attachment, event)"),
            (["run", "--shape", "/no/such/shape.json"], "shape file /no/such/shape.json: cannot be read"),
            (
                ["run", "--shape", "document", "--workloads", "get,search"],
                "--shape document: workload search asks items; records of a shape answer insert, insert-each"
            ),
        ])
    func badShapeOptionIsRejected(arguments: [String], message: String) throws {
        let (status, line) = try #require(answer(to: arguments), "\(arguments) was accepted")
        #expect(status == 2)
        #expect(line.contains(message), "\(line)")
    }
}

/// The file variants keep a committed record's blob whole, and no file outlives the next open without a row.
@Suite struct AttachmentFileTests {
    /// A transaction that fails after its files were written (a record inserted twice) leaves them behind; the next
    /// open removes them, and every committed record reads back whole.
    @Test(arguments: ["sqlite+files", "orm+external"])
    func filesOfAFailedCommitAreRemovedAtTheNextOpen(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        let shape = RecordShape.attachment
        let records = (Int64(1)...40).map { RecordGenerator(shape: shape, seed: 5).record(id: $0) }
        let store = try kind.open(directory.url)
        let table = try #require(store as? any RecordStore).records(of: shape)
        for record in records { try table.insertDurably(record) }
        let folder = try #require(
            try FileManager.default.subpathsOfDirectory(atPath: directory.url.path).first {
                $0.hasSuffix("attachments") || $0.hasSuffix("_EXTERNAL_DATA")
            })
        let files = directory.url.appendingPathComponent(folder)
        let committed = try FileManager.default.contentsOfDirectory(atPath: files.path).count
        // The ORM keeps values of up to 100 KB inline: about half of these.
        #expect(committed >= (name == "sqlite+files" ? 40 : 10))
        // The same record again: its file is written and flushed, then the commit fails on the duplicate id.
        let duplicate = try #require(
            records.first { RecordGenerator(shape: shape, seed: 5).payloadBytes(id: $0.id) > 200_000 })
        #expect(throws: (any Error).self) { try table.insertDurably(duplicate) }
        try? store.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.path).count == committed + 1)
        let reopened = try kind.open(directory.url)
        defer { try? reopened.close() }
        var found: [Record] = []
        try #require(reopened as? any RecordStore).records(of: shape).forEachRecord { found.append($0) }
        #expect(found == records)
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.path).count == committed)
    }

    /// `crash --shape`: killed writers, power-loss states and two crashes in a row leave every committed record's
    /// attachment whole, and no file without its row after the open.
    @Test(.tags(.endToEnd), .timeLimit(.minutes(5)))
    func fileVariantsKeepTheirPromiseThroughCrashes() throws {
        let directory = try TemporaryDirectory()
        let run = try runTool([
            "crash", "--shape", "attachment", "--stores", "sqlite+files,orm+external", "--scale", "40", "--kills", "4",
            "--power-loss", "8", "--crashes", "2", "--transactions", "8", "--out", directory.url.path,
        ])
        #expect(run.status == 0, "\(run.output)")
        let lines = run.output.split(separator: "\n")
        for check in ["kill: 4 trials", "power-loss: 8 trials", "two-crashes: 8 trials"] {
            for store in ["sqlite+files", "orm+external"] {
                let line = lines.first { $0.hasPrefix("\(store) \(check)") }
                #expect(line?.hasSuffix(" 0 torn, 0 corrupt, 0 broken") == true, "\(run.output)")
            }
        }
    }
}
