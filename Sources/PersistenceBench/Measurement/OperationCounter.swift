import Foundation

/// What a cell's counted region did, in units no machine changes: the same binary on the same data counts the
/// same on any host (instructions within the spread of glibc's CPU-specific string routines; docs/regression-checks.md
/// gives it).
///
/// The counted region is the timed phase and the digest read after it: the store's work, the harness's loop around it
/// and the check of its answers (not the harness's reading of /proc between them, paused).
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
    /// System calls of every thread, as callgrind counted them (`--collect-systime`), less the allocator's: what an
    /// instruction count does not see (under valgrind a system call is a handful of instructions, and a clock read is
    /// one, the vDSO being hidden).
    ///
    /// Nil where the process did not run under callgrind, or in a run counted before they were; a run counted before
    /// 2026-12-06 included the allocator's.
    package var systemCalls: UInt64?
    /// The system calls glibc's allocator made in the region (`brk`, and `mmap`/`munmap` of large blocks), left out
    /// of `systemCalls`: when a heap grows or shrinks follows the layout of everything allocated before, which the
    /// run's paths and environment move (`grdb+fts search 2k`: 41 `brk` calls under one directory, 39 under a
    /// shorter one, the same build and data), so the check shows them and judges allocations by their count.
    package var allocatorSystemCalls: UInt64?
    /// Nanoseconds those system calls spent off the CPU (their elapsed time less their CPU time): waits for a lock, a
    /// flush, a read from storage, a sleep.
    ///
    /// A time: a busy machine's preemptions inside calls move it by orders of magnitude, so the counter check shows it
    /// and judges the waits by their counts instead.
    package var systemCallWaitNanoseconds: UInt64?
    /// The process's minor page faults (a page mapped or first touched), from getrusage: valgrind's own translations
    /// and, for a mapped store, what the page cache holds move them a little.
    package var minorFaults: UInt64?
    /// Its major page faults (a page read from storage to be mapped).
    package var majorFaults: UInt64?
    /// The bytes it read from storage (getrusage's 512-byte input blocks): 0 where the page cache held everything.
    package var bytesReadFromStorage: UInt64?
    /// Its voluntary context switches: each a wait (for a lock, a flush, a read, a sleep) that gave up the CPU.
    package var voluntarySwitches: UInt64?

    package init(
        instructions: UInt64?, allocations: UInt64, syncs: UInt64, writeCalls: UInt64, bytesWritten: UInt64,
        systemCalls: UInt64? = nil, allocatorSystemCalls: UInt64? = nil, systemCallWaitNanoseconds: UInt64? = nil,
        minorFaults: UInt64? = nil, majorFaults: UInt64? = nil, bytesReadFromStorage: UInt64? = nil,
        voluntarySwitches: UInt64? = nil
    ) {
        self.instructions = instructions
        self.allocations = allocations
        self.syncs = syncs
        self.writeCalls = writeCalls
        self.bytesWritten = bytesWritten
        self.systemCalls = systemCalls
        self.allocatorSystemCalls = allocatorSystemCalls
        self.systemCallWaitNanoseconds = systemCallWaitNanoseconds
        self.minorFaults = minorFaults
        self.majorFaults = majorFaults
        self.bytesReadFromStorage = bytesReadFromStorage
        self.voluntarySwitches = voluntarySwitches
    }

    /// Adds what callgrind's dump of the region holds: instructions, and system calls with their wait where it
    /// collected them.
    package mutating func add(_ totals: CallgrindTotals) {
        instructions = totals.instructions
        systemCalls = totals.systemCalls
        allocatorSystemCalls = totals.allocatorSystemCalls
        systemCallWaitNanoseconds = totals.systemCallWaitNanoseconds
    }
}

/// The `totals:` line of callgrind's dump of the counted region, by the names its `events:` line gives, and the
/// system calls its allocator made.
package struct CallgrindTotals: Equatable, Sendable {
    package var instructions: UInt64?
    /// The region's system calls less the allocator's (`allocatorSystemCalls`).
    package var systemCalls: UInt64?
    /// The system calls made by calls out of glibc's allocator (`allocatorFunctions`) into the kernel's wrappers.
    package var allocatorSystemCalls: UInt64?
    /// `sysTime` less `sysCpuTime` (both in nanoseconds when callgrind ran with `--collect-systime=nsec`).
    package var systemCallWaitNanoseconds: UInt64?

    /// glibc's functions that grow, trim and map the heap: every system call glibc's allocator makes is made by a
    /// call out of one of them (to `sbrk`, `brk`, `mmap`, `munmap`, `mremap`, `mprotect`, `madvise`).
    ///
    /// A glibc without these symbols leaves its allocator's calls in `systemCalls`. A compiler's clone of one keeps its
    /// name before a dot (`systrim.constprop.0`).
    static let allocatorFunctions: Set<Substring> = [
        "sysmalloc", "systrim", "__glibc_morecore", "munmap_chunk", "mremap_chunk", "new_heap", "alloc_new_heap",
        "grow_heap", "shrink_heap", "heap_trim", "mtrim",
    ]

    static func isAllocator(_ function: Substring) -> Bool {
        allocatorFunctions.contains(function.prefix { $0 != "." })
    }

    /// The region's dump in `text` (`pb_counting_end` dumps it with the trigger "counted region"); nil when the text
    /// holds no such dump.
    package init?(callgrindOutput text: String) {
        var inRegion = false
        var events: [Substring] = []
        var totals: [Substring: UInt64]?
        var positions = 1
        var function: Substring = ""
        var callee: Substring = ""
        var callCostFollows = false
        var allocator: UInt64 = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("desc: Trigger:") {
                if totals != nil { break }
                inRegion = line.hasSuffix("counted region")
            }
            guard inRegion else { continue }
            if line.hasPrefix("events:") {
                events = Array(line.split(separator: " ").dropFirst())
            } else if line.hasPrefix("positions:") {
                positions = max(line.split(separator: " ").count - 1, 1)
            } else if totals == nil, line.hasPrefix("summary:") || line.hasPrefix("totals:") {
                let values = line.split(separator: " ").dropFirst().map { UInt64($0) ?? 0 }
                totals = Dictionary(
                    zip(events.isEmpty ? ["Ir"] : events, values), uniquingKeysWith: { first, _ in first })
            } else if line.hasPrefix("fn=") {
                function = line.dropFirst(3)
            } else if line.hasPrefix("cfn=") {
                callee = line.dropFirst(4)
            } else if line.hasPrefix("calls=") {
                callCostFollows = true
            } else if callCostFollows {
                // A call's inclusive cost: its positions, then the events in order (trailing zeros left out). Calls
                // between the allocator's own functions are inside one that leaves it: only those leaving it count.
                callCostFollows = false
                if Self.isAllocator(function), !Self.isAllocator(callee),
                    let index = events.firstIndex(of: "sysCount")
                {
                    let fields = line.split(separator: " ")
                    if fields.indices.contains(positions + index), let count = UInt64(fields[positions + index]) {
                        allocator += count
                    }
                }
            }
        }
        guard let totals else { return nil }
        instructions = totals["Ir"]
        if let calls = totals["sysCount"] {
            allocatorSystemCalls = min(allocator, calls)
            systemCalls = calls - min(allocator, calls)
        }
        if let elapsed = totals["sysTime"], let onCPU = totals["sysCpuTime"] {
            systemCallWaitNanoseconds = elapsed > onCPU ? elapsed - onCPU : 0
        }
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
        var counts = [UInt64](repeating: 0, count: 8)
        counts.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { functions.end($0) } }
        return OperationCounts(
            instructions: nil, allocations: counts[0], syncs: counts[1], writeCalls: counts[2],
            bytesWritten: counts[3], minorFaults: counts[4], majorFaults: counts[5],
            bytesReadFromStorage: counts[6] * 512, voluntarySwitches: counts[7])
    }
}
