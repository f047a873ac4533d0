/// Every workload, in the order reports list them.
public enum WorkloadCatalog {
    public static let all: [any Workload] =
        crud + search + limits + ycsb + live + associations + migrations + profile + system

    /// The CRUD workloads over `Item`: the default matrix.
    public static let crud: [any Workload] = [
        InsertWorkload(), InsertEachWorkload(), GetWorkload(distribution: .uniform),
        GetWorkload(distribution: .zipfian), GetBatchWorkload(), ScanWorkload(), CountWhereWorkload(),
        CountRangeWorkload(), PageWorkload(),
        UpdateWorkload(), DeleteWorkload(), WriteThenPageWorkload(),
    ]

    /// Search as you type over the items' titles: not in the default matrix (each cell asks at least 200
    /// keystrokes, seconds a cell at 100k for the stores that scan); `--workloads search`.
    public static let search: [any Workload] = [SearchWorkload()]

    /// The machine's limits for moving a compact store's bytes, beside `insert` and `scan`.
    public static let limits: [any Workload] = [LimitWriteWorkload(), LimitScanWorkload()]

    /// YCSB's core workloads A–F over `Item`.
    public static let ycsb: [any Workload] = YCSBWorkload.Letter.allCases.map(YCSBWorkload.init)

    /// An app living with its store: reads while a background import writes, queries kept fresh while it commits.
    public static let live: [any Workload] = [
        ImportWorkload(), ReadWhileImportWorkload(), ObserveWorkload(paced: true), ObserveWorkload(paced: false),
    ]

    /// Associations, ordered relationships and cascading deletes over `Sport`/`Team` and `House`/`Floor`/`Room`.
    public static let associations: [any Workload] = [
        TeamsPerSportWorkload(), OrderedRoomsWorkload(), CascadeDeleteWorkload(),
    ]

    /// Schema migrations over existing data.
    public static let migrations: [any Workload] = [UniqueTitleWorkload()]

    /// A time profile at tens of millions of samples.
    public static let profile: [any Workload] = [ProfileIngestWorkload(), ProfileWindowWorkload()]

    /// The store as a program meets it at launch: `open`.
    public static let system: [any Workload] = [OpenWorkload()]

    /// What `persistbench run` runs when no workloads are named.
    public static let defaultMatrix: [any Workload] = crud + limits

    public static func workload(named name: String) -> (any Workload)? {
        all.first { $0.name == name }
    }
}
