import Foundation

/// What a cell's counted region did, in units no machine changes: the same binary on the same data counts the
/// same on any host (instructions within the spread of glibc's CPU-specific string routines; docs/regression-checks.md
/// gives it). The counted region is the timed phase and the digest read after it: the store's work, the harness's
/// loop around it and the check of its answers (not the harness's reading of /proc between them, paused).
package struct OperationCounts: Codable, Sendable, Equatable {
    /// Instructions executed, as callgrind counted them; nil where the process did not run under callgrind.
    package var instructions: UInt64?
    /// Calls of malloc, calloc, realloc, memalign, aligned_alloc and posix_memalign, from every thread.
    package var allocations: UInt64
    /// Durable flushes: fsync, fdatasync, and msync with MS_SYNC.
    package var syncs: UInt64
    /// write, pwrite and their vector forms on regular files.
    package var writeCalls: UInt64
    /// The bytes those calls wrote.
    package var bytesWritten: UInt64

    package init(instructions: UInt64?, allocations: UInt64, syncs: UInt64, writeCalls: UInt64, bytesWritten: UInt64) {
        self.instructions = instructions
        self.allocations = allocations
        self.syncs = syncs
        self.writeCalls = writeCalls
        self.bytesWritten = bytesWritten
    }
}

/// The counted region of a cell's process, through libOperationCounter's functions (looked up with dlsym): in a
/// process without the library (every timed run), `begin`, `end` and `paused` do nothing and `end` returns nil.
enum OperationCounter {
    private typealias Mark = @convention(c) () -> Void
    private typealias End = @convention(c) (UnsafeMutablePointer<UInt64>) -> Void

    private static let functions: (begin: Mark, pause: Mark, resume: Mark, end: End)? = {
        guard let begin = dlsym(nil, "pb_counting_begin"), let pause = dlsym(nil, "pb_counting_pause"),
            let resume = dlsym(nil, "pb_counting_resume"), let end = dlsym(nil, "pb_counting_end")
        else { return nil }
        return (
            unsafeBitCast(begin, to: Mark.self), unsafeBitCast(pause, to: Mark.self),
            unsafeBitCast(resume, to: Mark.self), unsafeBitCast(end, to: End.self)
        )
    }()

    /// Whether this process counts (it runs with libOperationCounter preloaded, under callgrind).
    static var isCounting: Bool { functions != nil }

    static func begin() { functions?.begin() }

    /// Runs `body` with the region paused: the harness's own work in the region (reading the process's figures
    /// from /proc after the timed phase), whose cost follows the kernel's files rather than the store's work.
    static func paused<T>(_ body: () throws -> T) rethrows -> T {
        functions?.pause()
        defer { functions?.resume() }
        return try body()
    }

    /// The region's counts since `begin`, instructions left for the runner to read from callgrind's dump.
    static func end() -> OperationCounts? {
        guard let functions else { return nil }
        var counts = [UInt64](repeating: 0, count: 4)
        counts.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { functions.end($0) } }
        return OperationCounts(
            instructions: nil, allocations: counts[0], syncs: counts[1], writeCalls: counts[2],
            bytesWritten: counts[3])
    }

    /// The instructions of the counted region in a callgrind output file: the `totals:` line of its dump of that
    /// region (`pb_counting_end` dumps it with the trigger "counted region"); nil when the file holds no such dump.
    static func instructions(inCallgrindOutput text: String) -> UInt64? {
        var inRegion = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("desc: Trigger:") { inRegion = line.hasSuffix("counted region") }
            if inRegion, line.hasPrefix("totals:") || line.hasPrefix("summary:") {
                return line.split(separator: " ").dropFirst().first.flatMap { UInt64($0) }
            }
        }
        return nil
    }
}
