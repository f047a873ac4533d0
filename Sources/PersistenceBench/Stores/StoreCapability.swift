/// The protocol a workload needs its store to conform to: a store without it reads "n/a" in the workload's cells,
/// and `persistbench list --store NAME` names, for each such workload, this protocol.
public struct StoreCapability: Sendable {
    /// The protocol's name, as a store conforms to it: `ItemStore`, `ObservableItemStore`.
    public let protocolName: String
    /// Whether a store in another package can conform: the protocol is public.
    ///
    /// The others are this package's own.
    public let isPublic: Bool
    /// Whether a store of the type conforms.
    let isMet: @Sendable (any Store.Type) -> Bool

    init(_ protocolName: String, isPublic: Bool = false, isMet: @escaping @Sendable (any Store.Type) -> Bool) {
        self.protocolName = protocolName
        self.isPublic = isPublic
        self.isMet = isMet
    }

    /// A store's n/a reason: "files does not conform to X", and why it cannot where X is internal.
    package func reason(for store: String) -> String {
        "\(store) does not conform to \(protocolName)"
            + (isPublic ? "" : " (a protocol internal to PersistenceBench)")
    }

    static let items = StoreCapability("ItemStore", isPublic: true) { $0 is any ItemStore.Type }
    static let search = StoreCapability("SearchStore", isPublic: true) { $0 is any SearchStore.Type }
    static let migration = StoreCapability("MigrationStore") { $0 is any MigrationStore.Type }
    static let associations = StoreCapability("AssociationStore") { $0 is any AssociationStore.Type }
    static let houses = StoreCapability("HouseStore") { $0 is any HouseStore.Type }
    static let profiles = StoreCapability("ProfileStore") { $0 is any ProfileStore.Type }
    static let observation = StoreCapability("ObservableItemStore") { $0 is any ObservableItemStore.Type }
    static let concurrentReads = StoreCapability("ConcurrentReadStore") { $0 is any ConcurrentReadStore.Type }
    static let pinnedSnapshots = StoreCapability("SnapshotPinningStore") { $0 is any SnapshotPinningStore.Type }
    static let records = StoreCapability("RecordStore") { $0 is any RecordStore.Type }
    static let engineFloor = StoreCapability("EngineFloorStore") { $0 is any EngineFloorStore.Type }
    static let byteLayout = StoreCapability("ByteLayoutStore") { $0 is any ByteLayoutStore.Type }
}
