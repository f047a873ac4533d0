import Foundation
import PersistenceBench

/// Records of a shape through the object graph: a container whose model is the shape's entity (`Model.Record`) on
/// `records.sqlite` beside the items' store, as an app whose model is that entity; objects inserted and saved as
/// items are (`orm` saves once after a bulk load, `orm+batched` every batch), fetched by `id` with a limit of one,
/// updated by fetching the batch's objects and saving. `orm+external` lets blob attributes use external storage.
extension ORMItemStore: RecordStore {
    package func records(of shape: RecordShape) throws -> any RecordTable {
        if let table = recordTable, table.shape == shape { return table }
        // A table replaced during a build: its settings back, its file synced, as `finishBuild()` would.
        if buildCacheBytes != nil { try recordTable?.container.connection.finishBuild() }
        try recordTable?.close()
        let model = try ManagedObjectModel(entities: [
            (Model.Record.self, Model.Record.entityDescription(of: shape, externalStorage: externalStorage))
        ])
        let container = try ModelContainer(
            model: model, url: directory.appendingPathComponent("records.sqlite"), mechanisms: container.mechanisms)
        if let buildCacheBytes { try container.connection.startBuild(cacheBytes: buildCacheBytes) }
        let table = ORMRecordTable(
            shape: shape, container: container, context: ModelContext(container), savesEveryBatch: savesEveryBatch)
        recordTable = table
        return table
    }
}

final class ORMRecordTable: AttachmentTable {
    let shape: RecordShape
    let container: ModelContainer
    let context: ModelContext
    let savesEveryBatch: Bool

    init(shape: RecordShape, container: ModelContainer, context: ModelContext, savesEveryBatch: Bool) {
        self.shape = shape
        self.container = container
        self.context = context
        self.savesEveryBatch = savesEveryBatch
    }

    /// Core Data's external data folder (`orm+external`).
    var attachments: AttachmentFiles? { container.externalData }

    func namedFiles() throws -> Set<String> { try container.externalDataNames() }

    func close() throws {
        context.reset()
        try container.close()
    }

    func insert(_ batch: [Record]) throws {
        for record in batch { _ = Model.Record(record, context: context) }
        if savesEveryBatch {
            try context.save()
            context.reset()
        }
    }

    func insertDurably(_ record: Record) throws {
        _ = Model.Record(record, context: context)
        try context.save()
    }

    func record(id: Int64) throws -> Record? {
        try context.fetch(
            FetchDescriptor<Model.Record>(predicate: FetchPredicate(key: "id", equals: .integer(id)), fetchLimit: 1)
        ).first?.value(of: shape)
    }

    /// Fetches every record, sorted by id, as a SwiftData user's fetch: all objects in memory at once.
    func forEachRecord(_ body: (Record) throws -> Void) throws {
        for object in try context.fetch(FetchDescriptor<Model.Record>(sortBy: [FetchSortDescriptor(key: "id")])) {
            try body(object.value(of: shape))
        }
    }

    /// Fetches the batch's objects (`id IN`), sets the changed field of each and saves.
    func update(_ changes: [RecordUpdate]) throws {
        let ids = changes.map { AttributeValue.integer($0.id) }
        let objects = try context.fetch(
            FetchDescriptor<Model.Record>(predicate: FetchPredicate(key: "id", in: ids)))
        var byID: [Int64: Model.Record] = [:]
        for object in objects {
            if case .integer(let id) = object.primitiveValue(at: 0) { byID[id] = object }
        }
        for change in changes {
            guard let object = byID[change.id] else { throw ORMError.objectNotFound("record \(change.id) to update") }
            object.set(change.value, at: change.field)
        }
        try context.save()
    }

    func page(_ query: RecordPageQuery) throws -> [Record] {
        let filter: AttributeValue =
            switch query.filter {
            case .bool(let flag): .integer(flag ? 1 : 0)
            case .integer(let number): .integer(number)
            default: throw BenchError("a page filters on an integer or a bool")
            }
        let descriptor = FetchDescriptor<Model.Record>(
            predicate: FetchPredicate(key: shape.pageFilter, equals: filter),
            sortBy: [FetchSortDescriptor(key: shape.pageSort), FetchSortDescriptor(key: "id")],
            fetchLimit: query.limit, fetchOffset: query.offset)
        return try context.fetch(descriptor).map { try $0.value(of: shape) }
    }
}
