/// Every workload, in the order reports list them.
public enum WorkloadCatalog {
    package static let all: [any Workload] =
        crud + search + variants + limits + ycsb + live + associations + migrations + profile + system

    /// The CRUD workloads over `Item`: the default matrix.
    package static let crud: [any Workload] = [
        InsertWorkload(), InsertEachWorkload(), GetWorkload(distribution: .uniform),
        GetWorkload(distribution: .zipfian), GetBatchWorkload(), ScanWorkload(), CountWhereWorkload(),
        CountRangeWorkload(), PageWorkload(),
        UpdateWorkload(), DeleteWorkload(), WriteThenPageWorkload(),
    ]

    /// A CRUD workload's questions asked in another idiom, beside the library's own: not in the default matrix.
    package static let variants: [any Workload] = [
        GetWorkload(distribution: .uniform, warm: true), GetBatchWorkload(keyByKey: true),
        SearchWorkload(oneStatement: true),
    ]

    /// Search as you type over the items' titles: not in the default matrix (each cell types every keystroke of
    /// its 150 sessions, seconds a cell at 100k for the stores that scan); `--workloads search`.
    package static let search: [any Workload] = [SearchWorkload()]

    /// The machine's limits for moving a compact store's bytes, beside `insert` and `scan`, and each engine's own
    /// floor beside `insert` and `get` (`EngineFloorStore`).
    package static let limits: [any Workload] = [
        LimitWriteWorkload(), LimitScanWorkload(), EngineInsertWorkload(), EngineGetWorkload(),
    ]

    /// YCSB's core workloads A–F over `Item`.
    package static let ycsb: [any Workload] = YCSBWorkload.Letter.allCases.map(YCSBWorkload.init)

    /// An app living with its store: reads while a background import writes, queries kept fresh while it commits.
    package static let live: [any Workload] = [
        ImportWorkload(), ReadWhileImportWorkload(), ReadersWorkload(.get), ReadersWorkload(.page),
        ReadersWorkload(.search), TwoProcessesWorkload(),
        PinnedReaderWorkload(),
        ObserveWorkload(paced: true), ObserveWorkload(paced: false),
    ]

    /// Associations, ordered relationships and cascading deletes over `Sport`/`Team` and `House`/`Floor`/`Room`.
    package static let associations: [any Workload] = [
        TeamsPerSportWorkload(), OrderedRoomsWorkload(), CascadeDeleteWorkload(),
    ]

    /// Schema migrations over existing data.
    package static let migrations: [any Workload] = [UniqueTitleWorkload()]

    /// A time profile at tens of millions of samples.
    package static let profile: [any Workload] = [ProfileIngestWorkload(), ProfileWindowWorkload()]

    /// The store as a program meets it at launch: `open`.
    package static let system: [any Workload] = [OpenWorkload()]

    /// What `persistbench run` runs when no workloads are named.
    package static let defaultMatrix: [any Workload] = crud + limits

    public static func workload(named name: String) -> (any Workload)? {
        all.first { $0.name == name }
    }

    /// The workload a run of records of `shape` asks by `name` (`ShapedWorkload`); the item workload for a nil shape.
    package static func workload(named name: String, shape: RecordShape?) -> (any Workload)? {
        guard let shape else { return workload(named: name) }
        return ShapedWorkload.named(name, shape: shape)
    }
}
