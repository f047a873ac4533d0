import Foundation

/// What the cell's process measured of itself around the timed phase: memory, faults, storage I/O and its files.
package struct ResourceFigures: Codable, Equatable, Sendable {
    /// Resident anonymous memory at the end of the timed phase (RssAnon).
    package var rssAnonBytes: Int64?
    /// Resident file-backed memory at the end of the timed phase (RssFile): mapped files show here.
    package var rssFileBytes: Int64?
    /// The peak resident set of the cell's process during the timed phase alone (`VmHWM`, reset as the phase
    /// starts: `ProcessStats.resetPeak`): not the open before it (`openPeakRSSBytes`: for `json`, decoding the whole
    /// file) nor the digest read-back after it.
    ///
    /// In results recorded before 2026-11-25 (no `baselineRSSBytes`), the peak since the process started.
    package var timedPeakRSSBytes: Int64?
    /// The process's resident memory before the store opened: the tool's own fixed size.
    package var baselineRSSBytes: Int64?
    /// The process's peak resident memory from its start through the store's open, before the timed phase.
    package var openPeakRSSBytes: Int64?
    /// Page faults of the timed phase (getrusage's `ru_minflt` and `ru_majflt`): minor ones found their page in
    /// memory (a mapped file's page in the page cache, a new heap page), major ones waited for storage.
    ///
    /// What a mapped store's first lookups after an open pay, which no instruction count includes.
    package var phaseMinorFaults: Int64?
    package var phaseMajorFaults: Int64?
    /// Bytes sent to storage during the timed phase (/proc/self/io write_bytes), where the kernel counts them.
    package var storageWriteBytes: Int64?
    /// Bytes fetched from storage during the timed phase (/proc/self/io read_bytes: reads and faults that missed
    /// the page cache, with the read-ahead around them), where the kernel counts them.
    package var storageReadBytes: Int64?
    /// The store's files after it was closed.
    package var bytesOnDisk: Int64

    /// What the timed phase's peak added to the process as it was before the store opened: the memory the store
    /// and its work needed.
    ///
    /// Nil where either was not measured.
    package var rssGrowthBytes: Int64? {
        guard let timedPeakRSSBytes, let baselineRSSBytes else { return nil }
        return max(0, timedPeakRSSBytes - baselineRSSBytes)
    }
}
