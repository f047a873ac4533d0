import Foundation

/// What a cell's child process is asked to do: written by the parent as JSON, read by the child.
public struct CellJob: Codable, Sendable {
    public enum Mode: String, Codable, Sendable {
        /// Open the store, run the workload's timed phase, report metrics.
        case measure
        /// Load the workload's fixture into a new store and close it (untimed setup shared by cells).
        case loadFixture
    }

    public var mode: Mode
    public var store: String
    public var workload: String
    public var scale: Int
    public var seed: UInt64
    public var batchSize: Int
    /// Reads per second of `read-while-import`'s reader; nil for the default.
    public var readRate: Double?
    /// The time box of workloads that are a loop of steps (`TimeBox`); nil for none.
    public var timeBoxSeconds: Double?
    /// The most steps such a workload does: its group's count so far (`TimeBox`); nil for all.
    public var stepLimit: Int?
    /// The store's directory: empty for `insert`, a fresh copy of the fixture for the others.
    public var directory: String
    /// Where the child writes its `CellReport`.
    public var reportPath: String
    /// The file descriptor on which the parent reads progress (records done, one number per line), if any.
    public var progressDescriptor: Int32?
}

/// What a cell's child process reports back: its metrics, or the error that stopped it.
public struct CellReport: Codable, Sendable {
    public var metrics: CellMetrics?
    public var error: String?
}
