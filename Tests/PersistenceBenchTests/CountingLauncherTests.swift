import Foundation
import Testing

@testable import PersistenceBench

/// What a counted cell says when valgrind cannot count it.
@Suite struct CountingLauncherTests {
    /// Valgrind 3.19 gave up on the DWARF 5 units of a store's vendored C (issue 72's SQLiteNIO): the reason quotes
    /// it and names the remedy.
    @Test func aValgrindThatGaveUpSaysWhyAndTheRemedy() throws {
        let directory = try TemporaryDirectory()
        let log = directory.url.appendingPathComponent("valgrind.log")
        try """
        ==4242== Callgrind, a call-graph generating cache profiler
        ==4242== Command: /x/mybench _child /x/request.json
        ### unhandled dwarf2 abbrev form code 0x25
        ==4242== Valgrind: debuginfo reader: Possibly corrupted debuginfo file.
        ==4242== Valgrind: I can't recover.  Giving up.  Sorry.
        """.write(to: log, atomically: true, encoding: .utf8)
        let failure = try #require(CountingLauncher.failure(loggedIn: log.path))
        #expect(failure.contains("unhandled dwarf2 abbrev form code 0x25"), "\(failure)")
        #expect(failure.contains("Giving up") && failure.contains("-Xcc -gdwarf-4"), "\(failure)")
    }

    /// A real DWARF 5 program (clang's default here): valgrind 3.19 warns about the forms it cannot read and counts
    /// on, so nothing stops the cell.
    @Test func aValgrindThatWarnedAndWentOnIsNoFailure() throws {
        // The toolchain's clang (Swift ships it) and valgrind (`make deps`): CI has both.
        try #require(
            Subprocess.executablePath(named: "clang") != nil && Subprocess.executablePath(named: "valgrind") != nil)
        let directory = try TemporaryDirectory()
        let source = directory.url.appendingPathComponent("main.c")
        let program = directory.url.appendingPathComponent("main")
        let log = directory.url.appendingPathComponent("valgrind.log")
        try "int main(void) { return 0; }\n".write(to: source, atomically: true, encoding: .utf8)
        _ = try Subprocess.output(of: ["clang", "-gdwarf-5", "-O0", "-o", program.path, source.path])
        _ = try Subprocess.output(of: ["valgrind", "--tool=none", "--log-file=\(log.path)", program.path])
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(text.contains("Nulgrind"))
        #expect(CountingLauncher.failure(loggedIn: log.path) == nil, "\(text)")
    }
}
