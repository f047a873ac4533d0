import Foundation
import PersistenceBench
import Reports
import Testing

/// A counted cell's call graph, folded into stacks from callgrind's dump, and its flame graphs: each frame as wide
/// as its instructions, and a differential graph red where instructions grew.
@Suite struct FlameGraphTests {
    /// A counted region as callgrind dumps it (`--compress-strings=no`): `GetWorkload.run` looks items up 10 times;
    /// each lookup steps SQLite, and the current build also allocates in every lookup.
    static func dump(allocationPerLookup: Bool) -> String {
        let lookup = allocationPerLookup ? 1_300 : 1_000
        var lines = [
            "version: 1", "creator: callgrind-3.19.0", "desc: Trigger: counted region", "positions: line",
            "events: Ir sysCount", "summary: 0 0", "",
            "fn=GetWorkload.run", "12 500 0",
            "cfn=SQLiteItemStore.item", "calls=10 0", "0 \(lookup * 10)",
            "",
            "fn=SQLiteItemStore.item", "+1 2000 0",
            "cfn=sqlite3_step", "calls=10 0", "0 8000",
        ]
        if allocationPerLookup { lines += ["cfn=malloc", "calls=10 0", "0 3000"] }
        lines += ["", "fn=sqlite3_step", "0 8000 10"]
        if allocationPerLookup { lines += ["", "fn=malloc", "0 3000 0"] }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func aDumpFoldsIntoStacksThatAddUpToItsInstructions() throws {
        let stacks = CallGraph(callgrindOutput: Self.dump(allocationPerLookup: false)).foldedStacks()
        #expect(
            stacks == [
                "GetWorkload.run": 500, "GetWorkload.run;SQLiteItemStore.item": 2_000,
                "GetWorkload.run;SQLiteItemStore.item;sqlite3_step": 8_000,
            ])
        #expect(FoldedStacks.parse(FoldedStacks.text(stacks)) == stacks)
        #expect(FoldedStacks.parse("GetWorkload.run 500\n") == nil, "not a stacks file")
    }

    /// A function called from two places gets each caller's share of its cost, in proportion to their calls.
    @Test func aSharedCalleeIsSharedInProportionToItsCalls() throws {
        let text = """
            fn=root
            0 10
            cfn=a
            calls=1 0
            0 300
            cfn=b
            calls=1 0
            0 100
            fn=a
            0 100
            cfn=malloc
            calls=1 0
            0 200
            fn=b
            0 50
            cfn=malloc
            calls=1 0
            0 50
            fn=malloc
            0 250

            """
        let stacks = CallGraph(callgrindOutput: text).foldedStacks()
        #expect(stacks["root;a;malloc"] == 200 && stacks["root;b;malloc"] == 50)
        #expect(stacks.values.reduce(0, +) == 410)
    }

    @Test(arguments: [
        (
            "function signature specialization <Arg[6] = Dead> of static PersistenceBench.CellExecution.measure(_: "
                + "PersistenceBench.Workload, on: PersistenceBench.StoreKind, at: Foundation.URL) throws -> ()",
            "CellExecution.measure(_:on:at:)"
        ),
        (
            "protocol witness for PersistenceBench.ItemStore.item(id: Swift.Int64) throws -> PersistenceBench.Item? in "
                + "conformance SQLiteStore.SQLiteItemStore : PersistenceBench.ItemStore in SQLiteStore",
            "ItemStore.item(id:)"
        ),
        (
            "closure #1 in PersistenceBench.GetWorkload.run(on: PersistenceBench.Store) throws -> ()",
            "closure #1 in GetWorkload.run(on:)"
        ),
        ("sqlite3_step", "sqlite3_step"),
    ])
    func framesAreNamedShortly(demangled: String, frame: String) {
        #expect(SwiftDemangler.shortened(demangled) == frame)
    }

    @Test func theRuntimeDemanglesSwiftNames() {
        // `Swift.Int64.init(_: Swift.Int) -> Swift.Int64`, mangled.
        #expect(SwiftDemangler.frameName("$ss5Int64VyABSicfC") == "Int64.init(_:)")
        #expect(SwiftDemangler.frameName("malloc") == "malloc")
    }

    /// The test: an extra allocation in every lookup shows in the differential graph as a new, red frame
    /// under the lookup's, and the lookup's frame grew by what it costs.
    @Test func anAllocationAddedToEveryLookupShowsRedUnderTheLookup() throws {
        let base = CallGraph(callgrindOutput: Self.dump(allocationPerLookup: false)).foldedStacks()
        let current = CallGraph(callgrindOutput: Self.dump(allocationPerLookup: true)).foldedStacks()
        let graph = FlameGraph(
            title: "sqlite get 2k rep 1", stacks: current, operations: 10, base: (stacks: base, operations: 10))
        let grown = graph.grownFrames.map(\.stack)
        #expect(grown.contains("GetWorkload.run;SQLiteItemStore.item;malloc"))
        #expect(grown.contains("GetWorkload.run;SQLiteItemStore.item"))
        #expect(!grown.contains("GetWorkload.run;SQLiteItemStore.item;sqlite3_step"))
        let malloc = try #require(graph.grownFrames.first { $0.stack.hasSuffix(";malloc") })
        #expect(malloc.current == 300 && malloc.base == 0)
        // Drawn: a full-red box titled with the frame, its cost per operation and "new"; sqlite3_step grey.
        #expect(graph.svg.contains("<title>malloc: 300 instructions/op (22.2 %), base 0.0 (×new)</title>"))
        #expect(graph.svg.contains("fill=\"rgb(235,30,30)\""))
        #expect(graph.svg.contains("<title>sqlite3_step: 800 instructions/op (59.3 %), base 800 (×1.000)</title>"))
        // A plain graph has no changed frames.
        #expect(FlameGraph(title: "t", stacks: current, operations: 10).grownFrames.isEmpty)
    }
}
