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
        let deep = ["a;b;c": UInt64(5), "a;d": 7, "e;b": 1]  // frames that ran nothing themselves, a name twice
        #expect(FoldedStacks.parse(FoldedStacks.text(deep)) == deep)
        #expect(FoldedStacks.parse("GetWorkload.run 500\n") == nil, "not a stacks file")
        // A file of the first format, each stack's frame numbers, still reads.
        let list = """
            # persistbench stacks 1: frame names, then stacks of frame numbers and their instructions
            frames 2
            GetWorkload.run
            SQLiteItemStore.item
            0 500
            0;1 2000

            """
        #expect(FoldedStacks.parse(list) == ["GetWorkload.run": 500, "GetWorkload.run;SQLiteItemStore.item": 2_000])
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
        (
            "closure #1 () throws -> Swift.Int in SQLiteStore.SQLiteItemStore.item(id: Swift.Int64) throws -> "
                + "PersistenceBench.Item?",
            "closure #1 in SQLiteItemStore.item(id:)"
        ),
        (
            "generic specialization <PersistenceBench.FieldValue, Swift.EmptyCollection<PersistenceBench.FieldValue>> "
                + "of Swift.Array.replaceSubrange<A where A == A1.Element, A1: Swift.Collection>(_: Swift.Range<Swift.Int>, "
                + "with: __owned A1) -> ()",
            "Array.replaceSubrange<A>(_:with:)"
        ),
        (
            "static (extension in GRDB):Foundation.NSDate.fromDatabaseValue(GRDB.DatabaseValue) -> Self?",
            "NSDate.fromDatabaseValue(_:)"
        ),
        (
            "PersistenceBench.(ObserverCPU in _53FB6D514A5CB4AEE2F1375E392CA8D3).observerSeconds() -> Swift.Double",
            "ObserverCPU.observerSeconds()"
        ),
        (
            "PersistenceBench.SeededPermutation.subscript.getter : (Swift.Int) -> Swift.Int",
            "SeededPermutation.subscript.getter"
        ),
        (
            "type metadata accessor for PersistenceBench.FirstItems",
            "type metadata accessor for PersistenceBench.FirstItems"
        ),
        (
            "(2) await resume partial function for ArgumentParser.CommandParser.parse(arguments: [Swift.String]) async",
            "await resume partial function for CommandParser.parse(arguments:)"
        ),
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

    /// A frame cut below 0.5 % in one run and drawn in the other moved into its caller: nothing is gone.
    ///
    /// A root of a thread the store started is said to be one, its work not tied to an operation.
    @Test func framesThatMovedAreNotGoneAndAnotherThreadsRootSaysSo() throws {
        let base: [String: UInt64] = [
            "CellExecution.measure;Store.item": 900, "CellExecution.measure;Store.item;decode": 100,
            "Worker.serve;sqlite3_prepare": 500,
        ]
        let moved: [String: UInt64] = ["CellExecution.measure;Store.item": 1000, "Worker.serve;sqlite3_prepare": 500]
        let same = FlameGraph(title: "t", stacks: moved, operations: 10, base: (stacks: base, operations: 10)).svg
        #expect(!same.contains("gone"), "\(same)")
        let removed: [String: UInt64] = ["CellExecution.measure;Store.item": 900, "Worker.serve;sqlite3_prepare": 500]
        let less = FlameGraph(title: "t", stacks: removed, operations: 10, base: (stacks: base, operations: 10)).svg
        #expect(less.contains("frames gone since the base: 10.0 per operation"))
        #expect(same.contains("<title>Worker.serve\(FlameGraph.anotherThread): 50.0 instructions/op"))
        #expect(!same.contains("CellExecution.measure\(FlameGraph.anotherThread)"))
    }

    /// A lookup as callgrind dumps it with each instruction's address (`--dump-instr=yes`): the compiler inlined
    /// `decode` into `$lookup`, and the inlined code allocates.
    ///
    /// Addresses after the first are relative to the last cost line's, a call's to it too.
    static let dumpWithAddresses = """
        positions: instr
        events: Ir

        ob=/tool
        fn=root
        0x10 100
        cfn=$lookup
        calls=10 0x200
        0x14 2300

        fn=$lookup
        0x200 500
        +4 1000
        cfn=malloc
        calls=10 0x900
        +2 600
        * 200
        -4 0

        ob=/libc
        fn=malloc
        0x900 600

        """

    /// The frames at each address of /tool, innermost first, as llvm-symbolizer names them.
    static func symbolize(_ object: String, _ addresses: [UInt64]) -> [UInt64: [String]] {
        #expect(object == "/tool" && addresses == [0x10, 0x14, 0x200, 0x204, 0x206])
        return [
            0x10: ["root"], 0x14: ["root"], 0x200: ["$lookup"], 0x204: ["decode", "$lookup"],
            0x206: ["decode", "$lookup"],
        ]
    }

    @Test func aFunctionTheCompilerInlinedIsAFrameOfItsOwn() throws {
        var graph = CallGraph(callgrindOutput: Self.dumpWithAddresses)
        #expect(graph.foldedStacks() == ["root": 100, "root;$lookup": 1_700, "root;$lookup;malloc": 600])
        #expect(graph.objects == ["/tool", "/libc"])
        graph.resolveInlinedFrames(in: "/tool", symbolize: Self.symbolize)
        #expect(
            graph.foldedStacks() == [
                "root": 100, "root;$lookup": 500, "root;$lookup;decode [inlined]": 1_200,
                "root;$lookup;decode [inlined];malloc": 600,
            ])
        // An inlined frame under the floor is drawn in the frame it was inlined into, with what it called.
        #expect(graph.foldedStacks(minimumShare: 0.8) == ["root;$lookup": 2_300, "root": 100])
        // Where the outermost frame is not the function callgrind counted in (an alias), nothing is inlined.
        var aliased = CallGraph(callgrindOutput: Self.dumpWithAddresses)
        aliased.resolveInlinedFrames(in: "/tool") { _, _ in [0x204: ["decode", "lookupAlias"]] }
        #expect(aliased.foldedStacks() == ["root": 100, "root;$lookup": 1_700, "root;$lookup;malloc": 600])
        // Two specializations whose names shorten alike are one frame, and each keeps its inlined frames.
        let twoSpecializations = """
            positions: instr
            events: Ir

            ob=/tool
            fn=$lookupInt
            0x200 100
            fn=$lookupString
            0x300 300

            """
        var merged = CallGraph(callgrindOutput: twoSpecializations) { _ in "lookup" }
        merged.resolveInlinedFrames(in: "/tool") { _, _ in
            [0x200: ["decode", "$lookupInt"], 0x300: ["decode", "$lookupString"]]
        } demangle: {
            $0.hasPrefix("$lookup") ? "lookup" : $0
        }
        #expect(merged.foldedStacks() == ["lookup;decode [inlined]": 400])
    }

    /// The symbolizer the tool runs (llvm-symbolizer, which the Swift toolchain has) names a function of this
    /// process from its object's file.
    @Test func theSymbolizerNamesAFunctionOfThisProcess() throws {
        let symbolizer = try #require(Symbolizer(), "llvm-symbolizer on the PATH")
        let function = UInt64(UInt(bitPattern: try #require(dlsym(nil, "swift_demangle"))))
        // The object it is in (the mapping that holds it), loaded where that object's first bytes are mapped.
        // (Read to its end: Foundation reads a /proc file's first 4 KB only.)
        let maps = try #require(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile()
        let mappings = String(decoding: maps, as: UTF8.self).split(separator: "\n").compactMap {
            line -> (start: UInt64, end: UInt64, offset: UInt64, object: String)? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let range = fields.first?.split(separator: "-").compactMap { UInt64($0, radix: 16) } ?? []
            guard fields.count == 6, range.count == 2, let offset = UInt64(fields[2], radix: 16) else { return nil }
            return (range[0], range[1], offset, String(fields[5]))
        }
        let object = try #require(mappings.first { $0.start <= function && function < $0.end }?.object)
        let start = try #require(mappings.filter { $0.object == object && $0.offset == 0 }.map(\.start).min())
        let address = function - start
        #expect(symbolizer.frames(in: object, at: [address])[address]?.last == "swift_demangle")
    }
}
