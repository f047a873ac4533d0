import Foundation
import PersistenceBench
import StoreCatalog
import Testing

/// Stores added from another package (`PersistBenchTool.main(adding:)`; Examples/FileStore runs one in CI): they
/// follow the built-in ones, and a name the command line could not tell apart is refused with that name.
@Suite struct StoreCatalogTests {
    static func kind(named name: String) throws -> StoreKind {
        let memory = try #require(StoreCatalog.kind(named: StoreKind.harnessFloorName))
        return StoreKind(
            name: name, summary: "a store added for a test", durability: "none", promise: .nothing,
            configuration: "the floor's", engine: { "test" }, type: memory.type, open: memory.open)
    }

    @Test func addedStoresFollowTheBuiltInOnes() throws {
        let added = try StoreCatalog.adding([Self.kind(named: "mine"), Self.kind(named: "mine+fast")], to: [])
        #expect(added.map(\.name) == ["mine", "mine+fast"])
        #expect(added.allSatisfy { $0.inDefaultChecks })
        #expect(StoreCatalog.all.map(\.name) == StoreCatalog.builtIn.map(\.name), "nothing added in this process")
    }

    /// `list --store`: a store that only answers items (an outside store's usual start) reads n/a in exactly the
    /// workloads whose protocol it lacks, each naming the protocol and, where it is internal, that it cannot conform.
    @Test func aStoresListingNamesEveryWorkloadItCannotRunAndTheProtocol() throws {
        let kind = StoreKind(
            name: "items-only", summary: "items and nothing else", durability: "none", configuration: "",
            engine: { "test" }, type: AnswerDifferenceTests.Misreading.self, open: { _ in throw BenchError("unused") })
        let listing = StoreCatalog.listing(of: kind)
        let skipped = WorkloadCatalog.all.filter { !$0.supports(kind.type) }
        #expect(!skipped.isEmpty && skipped.count < WorkloadCatalog.all.count)
        #expect(listing.contains("Runs \(WorkloadCatalog.all.count - skipped.count) of \(WorkloadCatalog.all.count)"))
        for workload in WorkloadCatalog.all {
            let line = listing.split(separator: "\n").first { $0.hasPrefix("  \(workload.name) ") }
            if workload.supports(kind.type) {
                #expect(line == nil, "\(workload.name) listed as n/a for a store that runs it")
            } else {
                #expect(line?.contains("items-only does not conform to \(workload.capability.protocolName)") == true)
                #expect(line?.contains("internal to PersistenceBench") == !workload.capability.isPublic)
            }
        }
        #expect(listing.contains("observe ") && listing.contains("ObservableItemStore"))
        #expect(!listing.contains("  scan "))
    }

    @Test(arguments: [
        ("sqlite", "has a name that a store or a store set already has"),
        ("counted", "has a name that a store or a store set already has"),
        ("mine", "has a name that a store or a store set already has"),
        ("My Store", "needs a name of lowercase letters, digits, '-' and '+'"),
        ("", "needs a name of lowercase letters, digits, '-' and '+'"),
    ])
    func aNameTheCommandLineCouldNotTellApartIsRefused(name: String, message: String) throws {
        let mine = try Self.kind(named: "mine")
        let error = try #require(throws: BadInput.self) {
            try StoreCatalog.adding([Self.kind(named: name)], to: [mine])
        }
        #expect(error.description == "the added store '\(name)' \(message)")
    }
}
