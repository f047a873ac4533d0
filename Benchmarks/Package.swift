// swift-tools-version: 6.1
// package-benchmark (ordo-one/benchmark) suites for PersistenceBench: a nested package, so that the main package's
// `swift build` and `swift test` never build the benchmark plugin. Run from this directory:
//   swift package benchmark thresholds check      (what CI runs)
//   swift package --allow-writing-to-package-directory benchmark thresholds update   (after an intended change)

import Foundation
import PackageDescription

// A package depended on by path is named after its directory: the clone's directory, whatever it is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let rootPackage = root.lastPathComponent.lowercased()

let package = Package(
    name: "PersistenceBenchBenchmarks",
    dependencies: [
        .package(path: ".."),
        // The example of a store added from another package: its suites measure the store, and CI builds its
        // `filebench` here, against the modules this package builds in release anyway (`make example
        // EXAMPLE_PACKAGE=Benchmarks`).
        .package(path: "../Examples/FileStore"),
        // The MallocInterposer trait counts allocations without jemalloc; the default trait pulls a package the
        // build machines do not mirror.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "StoreWorkloads",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PersistenceBench", package: rootPackage),
                .product(name: "StoreCatalog", package: rootPackage),
                .product(name: "FileStore", package: "filestore"),
            ],
            path: "Benchmarks/StoreWorkloads",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
