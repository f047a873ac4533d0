// swift-tools-version: 6.1
// A store of your own, benchmarked beside PersistenceBench's: `files`, one JSON file per item in a directory.
//   swift build -c release --product filebench && swift build -c release --product OperationCounter
//   .build/release/filebench run --stores files,sqlite --scales 2k        (a matrix and its report)
//   .build/release/filebench check --counters baseline                   (the gate, against the committed baseline)
// The store is a library (`FileStore`), so that Benchmarks/'s package-benchmark suites measure it too; `filebench` is
// persistbench with it added. Your own package depends on PersistenceBench by the URL you clone it from:
//   .package(url: "https://github.com/OWNER/PersistenceBench", branch: "main")
// This one, inside the repository, by path, so that CI builds it against the commit under test.

import Foundation
import PackageDescription

// A package depended on by path is named after its directory: the clone's directory, whatever it is called.
let repositoryPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "FileStore",
    products: [
        .library(name: "FileStore", targets: ["FileStore"]),
        // Declared, so that a package depending on this one (Benchmarks/) can build it.
        .executable(name: "filebench", targets: ["filebench"]),
    ],
    dependencies: [.package(path: "../..")],
    targets: [
        .target(
            name: "FileStore", dependencies: [.product(name: "PersistenceBench", package: repositoryPackage)]),
        .executableTarget(
            name: "filebench",
            dependencies: ["FileStore", .product(name: "PersistBenchTool", package: repositoryPackage)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
