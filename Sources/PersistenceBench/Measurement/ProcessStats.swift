import Foundation

/// What Linux says about this process's memory, I/O and CPU, read from /proc/self and getrusage.
package struct ProcessStats: Sendable {
    /// Monotonic nanoseconds when these were read.
    package var monotonicNanoseconds: UInt64
    /// User plus system CPU seconds this process has used so far (getrusage).
    package var cpuSeconds: Double
    /// Times this process gave up the CPU to wait (getrusage's `ru_nvcsw`): a blocking `fdatasync`, a read that
    /// missed the page cache, a lock.
    ///
    /// A CPU-bound stretch of code adds none.
    package var voluntaryContextSwitches: Int64
    /// Resident anonymous memory (heap, stacks): `RssAnon` in /proc/self/status.
    package var rssAnonBytes: Int64?
    /// Resident file-backed memory (mapped files, such as an mmap store's pages): `RssFile`.
    package var rssFileBytes: Int64?
    /// Bytes this process caused to be sent to storage: `write_bytes` in /proc/self/io.
    package var storageWriteBytes: Int64?
    /// Bytes this process caused to be fetched from storage (a read or a fault that missed the page cache, the
    /// read-ahead around it included): `read_bytes` in /proc/self/io.
    package var storageReadBytes: Int64?
    /// Page faults served without storage (a page already in the page cache, a new anonymous page): `ru_minflt`.
    package var minorFaults: Int64 = 0
    /// Page faults that waited for storage: `ru_majflt`.
    package var majorFaults: Int64 = 0
    /// The most resident memory this process has held so far, or since `resetPeak()`: `VmHWM`.
    package var peakRSSBytes: Int64?
    /// The resident memory now: `VmRSS`.
    package var residentBytes: Int64?

    /// Reads the current values; a field is nil where the kernel does not provide it.
    package static func current() -> ProcessStats {
        let status = fields(of: "/proc/self/status")
        let io = fields(of: "/proc/self/io")
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return ProcessStats(
            monotonicNanoseconds: PersistenceBench.monotonicNanoseconds(),
            cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
            voluntaryContextSwitches: Int64(usage.ru_nvcsw), rssAnonBytes: status["RssAnon"].flatMap(kilobytes),
            rssFileBytes: status["RssFile"].flatMap(kilobytes),
            storageWriteBytes: io["write_bytes"].flatMap { Int64($0) },
            storageReadBytes: io["read_bytes"].flatMap { Int64($0) }, minorFaults: Int64(usage.ru_minflt),
            majorFaults: Int64(usage.ru_majflt), peakRSSBytes: status["VmHWM"].flatMap(kilobytes),
            residentBytes: status["VmRSS"].flatMap(kilobytes))
    }

    /// Sets this process's `VmHWM` to its resident memory now (Linux's `/proc/self/clear_refs`, "5"), so that the
    /// next reading of `peakRSSBytes` is the peak of what ran in between.
    ///
    /// False where the kernel refused.
    static func resetPeak() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// The resident set of another process, in bytes (`VmRSS` of /proc/PID/status), or nil once it has exited.
    package static func residentBytes(ofProcess pid: pid_t) -> Int64? {
        fields(of: "/proc/\(pid)/status")["VmRSS"].flatMap(kilobytes)
    }

    private static func kilobytes(_ text: String) -> Int64? {
        guard let value = Int64(text.split(separator: " ").first ?? "") else { return nil }
        return value * 1024
    }

    /// The "Name: value" lines of a /proc file.
    ///
    /// Trimmed without Foundation's `trimmingCharacters`, which (through NSString) made this a quarter of the runner's
    /// CPU time: it reads the child's status several times a second.
    private static func fields(of path: String) -> [String: String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            var value = line[line.index(after: colon)...]
            while value.first == " " || value.first == "\t" { value.removeFirst() }
            while value.last == " " || value.last == "\t" { value.removeLast() }
            result[String(line[..<colon])] = String(value)
        }
        return result
    }
}
