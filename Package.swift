// swift-tools-version: 6.1
// PersistenceBench: identical, verified workloads against several Swift persistence strategies.

import PackageDescription

let package = Package(
    name: "PersistenceBench",
    products: [
        .executable(name: "persistbench", targets: ["persistbench"]),
        // The core: records, the store protocols (`Store`, `ItemStore`), workloads, measurement, results.
        .library(name: "PersistenceBench", targets: ["PersistenceBench"]),
        // The command line as a library, for a package that benchmarks its own store beside the built-in ones:
        // its executable calls `PersistBenchTool.main(adding:)` (docs/your-own-store.md, Examples/FileStore).
        .library(name: "PersistBenchTool", targets: ["PersistBenchTool"]),
        // The stores, for the package-benchmark suites in Benchmarks/ (a nested package) and other users.
        .library(name: "StoreCatalog", targets: ["StoreCatalog"]),
        // The LD_PRELOAD library `persistbench crash --power-loss` and the fault checks load into a writer: it
        // records every write and flush to a store's files, and can fail one. Built beside the tool.
        .library(name: "WriteRecorder", type: .dynamic, targets: ["CWriteRecorder"]),
        // The LD_PRELOAD library `persistbench run --count` loads into a cell: it counts allocations, flushes and
        // writes in the cell's counted region, and switches callgrind's instruction count on for it. Built beside
        // the tool.
        .library(name: "OperationCounter", type: .dynamic, targets: ["COperationCounter"]),
    ],
    dependencies: [
        // Exact versions: the build machines resolve packages from a local mirror that holds only these.
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", exact: "0.2.0"),
    ],
    targets: [
        // The system SQLite (libsqlite3-dev), for the SQLite-based stores through SQLiteSupport. GRDB links the
        // same library.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The system LMDB (liblmdb-dev), for the `lmdb` store only.
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // Plain C with no dependency: libWriteRecorder.so interposes libc's write, flush, truncate, rename and unlink
        // calls (CWriteRecorder/recorder.c).
        .target(name: "CWriteRecorder", linkerSettings: [.linkedLibrary("dl")]),
        // Plain C, valgrind's client-request header its one include beyond libc (COperationCounter/counter.c).
        .target(name: "COperationCounter", linkerSettings: [.linkedLibrary("dl")]),
        // The core: records, generator, Store protocols, workloads, measurement, runner, results model.
        // It imports no store; stores and the tool depend on it.
        .target(
            name: "PersistenceBench",
            dependencies: [.product(name: "Histogram", package: "hdrhistogram-swift")]
        ),
        // A thin wrapper of the SQLite C API (connection, prepared statements) shared by `sqlite` and `orm`, so
        // that neither store imports the other and the C API is wrapped once; and what every SQLite-based store
        // shares, `grdb` too: the busy timeout, the reading of `PRAGMA integrity_check`.
        .target(name: "SQLiteSupport", dependencies: ["PersistenceBench", "CSQLite"]),
        .target(name: "SQLiteStore", dependencies: ["PersistenceBench", "SQLiteSupport"]),
        .target(name: "ORMStore", dependencies: ["PersistenceBench", "SQLiteSupport"]),
        .target(
            name: "GRDBStore",
            dependencies: [
                "PersistenceBench", "SQLiteSupport", .product(name: "GRDB", package: "GRDB.swift"),
                // For sqlite3_libversion(): GRDB links the system SQLite through this module.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            // GRDB's version in reports, as SwiftPM resolved it.
            plugins: ["ResolvedVersions"]
        ),
        // Writes the resolved versions of this package's dependencies as Swift source, for a target's plugin.
        .executableTarget(name: "ResolvedVersionWriter"),
        .plugin(name: "ResolvedVersions", capability: .buildTool(), dependencies: ["ResolvedVersionWriter"]),
        .target(name: "LMDBStore", dependencies: ["PersistenceBench", "CLMDB"]),
        .target(name: "PackedStore", dependencies: ["PersistenceBench"]),
        // The harness floor: items in Swift collections, nothing persisted while it runs.
        .target(name: "MemoryStore", dependencies: ["PersistenceBench"]),
        // Every store in one list, for the tool, the tests and Benchmarks/.
        .target(
            name: "StoreCatalog",
            dependencies: [
                "PersistenceBench", "SQLiteStore", "GRDBStore", "ORMStore", "LMDBStore", "PackedStore", "MemoryStore",
            ]
        ),
        .target(name: "Reports", dependencies: ["PersistenceBench"]),
        // Every command of the tool, and `PersistBenchTool.main(adding:)`, which runs them with a package's own
        // stores added.
        .target(
            name: "PersistBenchTool",
            dependencies: [
                "PersistenceBench", "Reports", "StoreCatalog",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The tool with the built-in stores: one line that calls PersistBenchTool.
        .executableTarget(name: "persistbench", dependencies: ["PersistBenchTool"]),
        // The readers of what a user or a crash hands the tool (a shape file, results.json, packed's files, the
        // write recorder's log), one input at a time: for the fuzzer and for the tests' replay of its corpus.
        .target(name: "FuzzTargets", dependencies: ["PersistenceBench", "PackedStore"]),
        // `make fuzz` builds it with `-sanitize=fuzzer -D FUZZING` (libFuzzer's entry); otherwise it replays inputs.
        .executableTarget(name: "persistbench-fuzz", dependencies: ["FuzzTargets"]),
        .testTarget(
            name: "PersistenceBenchTests",
            // The tool is a dependency so that CLI tests can run the real, freshly built executable.
            dependencies: [
                "PersistenceBench", "Reports", "StoreCatalog", "SQLiteStore", "GRDBStore", "ORMStore", "LMDBStore",
                "PackedStore", "MemoryStore", "PersistBenchTool", "persistbench", "FuzzTargets",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
