/// Every workload, in the order reports list them.
public enum WorkloadCatalog {
    public static let all: [any Workload] = crud

    /// The CRUD workloads over `Item`: the default matrix.
    public static let crud: [any Workload] = [
        InsertWorkload(), InsertEachWorkload(), GetWorkload(distribution: .uniform),
        GetWorkload(distribution: .zipfian), ScanWorkload(), CountWhereWorkload(), PageWorkload(),
        UpdateWorkload(), DeleteWorkload(),
    ]

    public static func workload(named name: String) -> (any Workload)? {
        all.first { $0.name == name }
    }
}
