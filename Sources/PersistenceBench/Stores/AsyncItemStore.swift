import Foundation

/// `ItemStore`'s questions for a library whose API is async (an actor, `async` calls): the store answers them as
/// its library does, and `AsyncItemStoreAdapter` makes it an `ItemStore` the workloads call.
///
/// Each requirement means what the `ItemStore` requirement of the same name means; `forEachItem(into:)` yields
/// every item, in id order, into a feed the asking thread drains as it goes (`ItemFeed`). A `StoreKind` opens it
/// with an async open (`StoreKind.init(…, opening:)`). What the bridge costs per call is measured:
/// docs/your-own-store.md, "Which bridge".
public protocol AsyncItemStore: AnyObject, Sendable {
    func insert(_ batch: [Item]) async throws
    func insertDurably(_ item: Item) async throws
    func insertCommitted(_ batch: [Item]) async throws
    func item(id: Int64) async throws -> Item?
    func items(ids: [Int64]) async throws -> [Item?]
    func itemsKeyByKey(ids: [Int64]) async throws -> [Item?]
    /// Every item in id order, each handed to `feed.yield(_:)` (which waits while the feed is full, and throws
    /// once the asking side has stopped). The adapter finishes the feed when this returns or throws.
    func forEachItem(into feed: ItemFeed) async throws
    func count(where filter: ItemFilter) async throws -> Int
    func count(pricedIn range: PriceRange) async throws -> Int
    func page(_ query: ItemPageQuery) async throws -> [Item]
    func items(startingAt id: Int64, limit: Int) async throws -> [Item]
    func update(_ updates: [ItemUpdate]) async throws
    func delete(ids: [Int64]) async throws
    func finishInserting() async throws
    func settle() async throws
    func close() async throws
    /// As `Store.bytesOnDisk(at:)`.
    static func bytesOnDisk(at directory: URL) throws -> Int64
    /// As `Store.maintainedCounts`.
    static var maintainedCounts: Set<MaintainedCount> { get }
}

extension AsyncItemStore {
    public func items(ids: [Int64]) async throws -> [Item?] {
        var answers: [Item?] = []
        answers.reserveCapacity(ids.count)
        for id in ids { answers.append(try await item(id: id)) }
        return answers
    }

    public func itemsKeyByKey(ids: [Int64]) async throws -> [Item?] { try await items(ids: ids) }

    public func insertCommitted(_ batch: [Item]) async throws { try await insert(batch) }

    public func finishInserting() async throws {}

    public func settle() async throws {}

    public static func bytesOnDisk(at directory: URL) throws -> Int64 { try FileSystem.logicalSize(of: directory) }

    public static var maintainedCounts: Set<MaintainedCount> { [] }
}

/// An `AsyncItemStore` as the `ItemStore` the workloads call: each call waits for the async store's answer on the
/// calling thread (`AsyncBridge.wait`), and `forEachItem` drains an `ItemFeed` the async store fills from a task.
public final class AsyncItemStoreAdapter<Base: AsyncItemStore>: ItemStore {
    /// The async store every call goes to.
    public let base: Base

    public init(_ base: Base) {
        self.base = base
    }

    public func insert(_ batch: [Item]) throws { try AsyncBridge.wait { [base] in try await base.insert(batch) } }

    public func insertDurably(_ item: Item) throws {
        try AsyncBridge.wait { [base] in try await base.insertDurably(item) }
    }

    public func insertCommitted(_ batch: [Item]) throws {
        try AsyncBridge.wait { [base] in try await base.insertCommitted(batch) }
    }

    public func item(id: Int64) throws -> Item? { try AsyncBridge.wait { [base] in try await base.item(id: id) } }

    public func items(ids: [Int64]) throws -> [Item?] {
        try AsyncBridge.wait { [base] in try await base.items(ids: ids) }
    }

    public func itemsKeyByKey(ids: [Int64]) throws -> [Item?] {
        try AsyncBridge.wait { [base] in try await base.itemsKeyByKey(ids: ids) }
    }

    public func forEachItem(_ body: (Item) throws -> Void) throws {
        try ItemFeed.stream(into: body) { feed in
            AsyncBridge.start { [base] in
                do {
                    try await base.forEachItem(into: feed)
                    feed.finish()
                } catch {
                    feed.finish(throwing: error)
                }
            }
        }
    }

    public func count(where filter: ItemFilter) throws -> Int {
        try AsyncBridge.wait { [base] in try await base.count(where: filter) }
    }

    public func count(pricedIn range: PriceRange) throws -> Int {
        try AsyncBridge.wait { [base] in try await base.count(pricedIn: range) }
    }

    public func page(_ query: ItemPageQuery) throws -> [Item] {
        try AsyncBridge.wait { [base] in try await base.page(query) }
    }

    public func items(startingAt id: Int64, limit: Int) throws -> [Item] {
        try AsyncBridge.wait { [base] in try await base.items(startingAt: id, limit: limit) }
    }

    public func update(_ updates: [ItemUpdate]) throws {
        try AsyncBridge.wait { [base] in try await base.update(updates) }
    }

    public func delete(ids: [Int64]) throws { try AsyncBridge.wait { [base] in try await base.delete(ids: ids) } }

    public func finishInserting() throws { try AsyncBridge.wait { [base] in try await base.finishInserting() } }

    public func settle() throws { try AsyncBridge.wait { [base] in try await base.settle() } }

    public func close() throws { try AsyncBridge.wait { [base] in try await base.close() } }

    public static func bytesOnDisk(at directory: URL) throws -> Int64 { try Base.bytesOnDisk(at: directory) }

    public static var maintainedCounts: Set<MaintainedCount> { Base.maintainedCounts }
}

/// An `AsyncItemStore` that checks its own files, as `IntegrityCheckingStore` asks (each requirement means what
/// that protocol's does): its adapter is then an `IntegrityCheckingStore`, so `crash` and `verify` check it.
public protocol AsyncIntegrityCheckingStore: AsyncItemStore {
    func checkIntegrity() async throws
    static func storeFiles(in directory: URL, kind: String) -> StoreFiles
}

extension AsyncItemStoreAdapter: IntegrityCheckingStore where Base: AsyncIntegrityCheckingStore {
    public func checkIntegrity() throws { try AsyncBridge.wait { [base] in try await base.checkIntegrity() } }

    public static func storeFiles(in directory: URL, kind: String) -> StoreFiles {
        Base.storeFiles(in: directory, kind: kind)
    }
}

extension StoreKind {
    /// A kind whose store is an `AsyncItemStore`, opened by an async `opening` (a library whose connection opens
    /// asynchronously): the tool waits for the open and calls the store through `AsyncItemStoreAdapter`.
    ///
    /// The other parameters are `init(name:summary:durability:…)`'s.
    public init<Base: AsyncItemStore>(
        name: String, summary: String, durability: String, promise: DurabilityPromise = .everyCommit,
        configuration: String, engine: @escaping @Sendable () -> String,
        inclusion: Inclusion = .defaultRun, workNotes: [String: String] = [:], cannotRun: [String: String] = [:],
        schedulingDependent: [SchedulingDependentCounter: String] = [:],
        opening: @escaping @Sendable (URL) async throws -> Base
    ) {
        self.init(
            name: name, summary: summary, durability: durability, promise: promise, configuration: configuration,
            engine: engine, inclusion: inclusion, workNotes: workNotes, cannotRun: cannotRun,
            schedulingDependent: schedulingDependent, type: AsyncItemStoreAdapter<Base>.self,
            open: { directory in AsyncItemStoreAdapter(try AsyncBridge.wait { try await opening(directory) }) })
    }
}
