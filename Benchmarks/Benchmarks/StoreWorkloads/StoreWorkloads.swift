import Benchmark
import FileStore
import Foundation
import PersistenceBench
import StoreCatalog

/// Every store × core workload at 10k records (and the example store's reads at 2k), through the library's own
/// workloads and cell code (`CellExecution`): the timed phase alone is measured, between startMeasurement and
/// stopMeasurement.
///
/// Gated on what is stable on a shared, noisy machine: allocations (malloc count) and bytes written through
/// write(2) (`writeBytesLogical`). Time is not gated here; `persistbench check` judges time with calibration and
/// the repetitions' spread. Each iteration checks its digest against the `sqlite` store's answer, computed once in
/// setup: a benchmark whose answers are wrong reports an error instead of a number.
let benchmarks: @Sendable () -> Void = {
    let builtInScale = 10_000
    let seed = RunConfiguration.defaultSeed
    let batchSize = RunConfiguration.defaultBatchSize
    let coreWorkloads = ["insert", "scan", "get", "update", "delete"]
    // Allocation counts vary by a few per run (dispatch, lazily created buffers); bytes written do not.
    let thresholds: [BenchmarkMetric: BenchmarkThresholds] = [
        .mallocCountTotal: BenchmarkThresholds(relative: [.p90: 2.0]),
        .writeBytesLogical: BenchmarkThresholds(relative: [.p90: 1.0]),
    ]
    Benchmark.defaultConfiguration = .init(
        metrics: [.mallocCountTotal, .writeBytesLogical], warmupIterations: 1,
        maxDuration: .seconds(20), maxIterations: 5, thresholds: thresholds)

    func context(scale: Int) -> WorkloadContext {
        WorkloadContext(
            scale: scale, seed: seed, batchSize: batchSize, stopwatch: Stopwatch(), progress: ProgressReporter())
    }

    /// A directory under the system's temporary directory, removed by `teardown`.
    final class Scratch: @unchecked Sendable {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("persistencebench-benchmarks-\(getpid())-\(UUID().uuidString)")
        var fixture: URL { root.appendingPathComponent("fixture") }
        var cell: URL { root.appendingPathComponent("cell") }
        var expected: Digest?
    }

    guard let reference = StoreCatalog.kind(named: "sqlite") else { return }
    // Variants that isolate one mechanism (`orm+history`) are measured by `persistbench` when named, not here.
    // The built-in stores at 10k; the example of a store from another package (Examples/FileStore), as a user's
    // package would measure theirs, on its reads at 2k: its every write flushes a file (10k flushes load a fixture).
    let suites =
        StoreCatalog.all.filter(\.inDefaultChecks).map { (kind: $0, workloads: coreWorkloads, scale: builtInScale) }
        + [(kind: FileItemStore.kind, workloads: ["get", "scan"], scale: 2_000)]
    for (kind, workloads, scale) in suites {
        for name in workloads {
            guard let workload = WorkloadCatalog.workload(named: name), workload.supports(kind.type) else { continue }
            let scratch = Scratch()
            /// A fresh store for one iteration: an empty directory, or a copy of the fixture.
            func prepareCell() throws {
                try FileSystem.remove(scratch.cell)
                if workload.fixture == nil {
                    try FileSystem.makeDirectory(scratch.cell)
                } else {
                    try FileSystem.copyForCell(from: scratch.fixture, to: scratch.cell)
                }
            }
            Benchmark(
                // No spaces or slashes: package-benchmark writes them as underscores in threshold file names and
                // would not find the files again.
                "\(kind.name)-\(name)-\(scale / 1_000)k",
                closure: { benchmark in
                    do {
                        try prepareCell()
                        let metrics = try CellExecution.measure(
                            workload, on: kind, at: scratch.cell, context: context(scale: scale),
                            begin: benchmark.startMeasurement, end: benchmark.stopMeasurement)
                        if metrics.digest != scratch.expected {
                            benchmark.error(
                                "\(kind.name) \(name): digest \(metrics.digest) differs from sqlite's "
                                    + "\(scratch.expected.map(\.description) ?? "none")")
                        }
                    } catch {
                        benchmark.error("\(kind.name) \(name): \(error)")
                    }
                },
                setup: {
                    // The fixture for this store, and the reference answer from sqlite on its own copy.
                    let referenceDirectory = scratch.root.appendingPathComponent("reference")
                    try FileSystem.makeDirectory(scratch.fixture)
                    try FileSystem.makeDirectory(referenceDirectory)
                    if workload.fixture != nil {
                        try CellExecution.loadFixture(
                            of: workload, into: kind, at: scratch.fixture, context: context(scale: scale))
                        try CellExecution.loadFixture(
                            of: workload, into: reference, at: referenceDirectory, context: context(scale: scale))
                    }
                    scratch.expected = try CellExecution.measure(
                        workload, on: reference, at: referenceDirectory, context: context(scale: scale)
                    ).digest
                },
                teardown: { try FileSystem.remove(scratch.root) })
        }
    }
}
