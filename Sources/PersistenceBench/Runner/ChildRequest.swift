import Foundation

/// What a child of the tool is asked to do: written by its parent (`ChildSupervisor`) as JSON, read by the hidden
/// `_child` command (`ChildExecution`).
package struct ChildRequest: Codable, Sendable {
    package enum Job: Codable, Sendable {
        /// A cell's timed phase, or the load of its fixture.
        case cell(CellJob)
        /// One step of `persistbench crash`: a fixture, a writer, a verifier.
        case crash(CrashJob)
        /// The extension of `two-processes`, started by a cell's process.
        case secondProcess(SecondProcessJob)
        /// `verify`'s open and check of a copy of a kept store.
        case integrity(IntegrityJob)
    }

    package var job: Job
    /// Where the child writes its `ChildReply`.
    package var replyPath: String
    /// Whether the child sends its progress on the `ProgressChannel`: a counted cell does not, as reports that come
    /// every tenth of a second would make its allocations count the machine's speed.
    package var reportsProgress: Bool
}

/// What a cell's child process is asked to do (`ChildRequest`).
package struct CellJob: Codable, Sendable {
    package enum Mode: String, Codable, Sendable {
        /// Open the store, run the workload's timed phase, report metrics.
        case measure
        /// Load the workload's fixture into a new store and close it (untimed setup shared by cells).
        case loadFixture
    }

    package var mode: Mode
    package var store: String
    package var workload: String
    package var parameters: CellParameters
    /// The store's directory: empty for `insert`, a fresh copy of the fixture for the others.
    package var directory: String
    /// For `loadFixture`: the page cache a `FastBuildingStore` may build with (`FixtureBuild.cacheBytes`); nil for
    /// the store's everyday settings.
    package var buildCacheBytes: Int?
}

/// `verify`'s check of a copy of a store (`StoreVerification`), in a child.
package struct IntegrityJob: Codable, Sendable {
    package var store: String
    /// The copy's directory.
    package var directory: String
}

/// What a child process of `persistbench crash` is asked to do (`ChildRequest`).
package struct CrashJob: Codable, Sendable {
    package enum Mode: String, Codable, Sendable {
        /// Load the `get` fixture (items 1…scale) into a new store and close it.
        case prepare
        /// Open the store, send 0 on the progress channel, then commit the plan's transactions one by one, sending
        /// each one's number after its commit returns; after `transactions` (if set), close and exit.
        case write
        /// Open the store (timed), check its integrity, and say which committed state it holds.
        case verify
    }

    package var mode: Mode
    package var store: String
    package var scale: Int
    package var seed: UInt64
    /// Which sequence of transactions (`CrashPlan`'s run).
    package var run: Int
    package var directory: String
    /// For `write`: how many transactions, or nil to write until killed.
    package var transactions: Int?
    /// For `verify`: how many transactions had committed (the last number the writer reported).
    package var committed: Int
    /// For a crash sequence: the store recovered from a first crash, and the plan goes on from there.
    package var continuation: Continuation?
    /// The records' shape (`crash --shape`); nil for items.
    package var shape: RecordShape?

    /// A store that recovered from a crash to the state after `after` of the plan's transactions, written on by a
    /// successor whose transactions are `CrashPlan.continuing(run, retrying:)`'s and numbered from `after + 1`.
    ///
    /// The successor reports `after` once its open returned: the state it builds on, its commits' base.
    package struct Continuation: Codable, Sendable, Equatable {
        package var after: Int
        package var run: Int
        /// Whether the successor first makes again the transaction the crash cut off.
        package var retrying: Bool

        package init(after: Int, run: Int, retrying: Bool) {
            self.after = after
            self.run = run
            self.retrying = retrying
        }
    }
}

/// What a child reports back: exactly one outcome, what its job asked for or the error that stopped it. (Whether a
/// cell finished is its parent's to say: a child stopped at a budget writes no reply.)
package enum ChildReply: Codable, Sendable {
    /// A cell's metrics; none for a fixture's load.
    case cell(CellMetrics?)
    /// A crash check's verdict on the store it reopened (none for a writer), and how long the reopen took.
    case crash(verdict: CrashVerdict?, openSeconds: Double?)
    /// The extension's commits, or its refused open.
    case secondProcess(ProcessCommits)
    /// What `verify`'s check of a copy found.
    case integrity(StoreVerification.Findings)
    /// The error that stopped the job.
    case failed(String)
}

/// The pipe on which a child tells its parent how far it got, one number per line: the records a cell has done,
/// the transactions a crash check's writer has committed.
///
/// The child's descriptor 3, the write end of a pipe its parent reads (`ChildProcess`).
package struct ProgressChannel: Sendable {
    package static let descriptor: Int32 = 3

    /// The channel, if this process has one: descriptor 3 is a pipe.
    ///
    /// Anything else there (a database file a store opened as descriptor 3 in a process started without the pipe) is
    /// never written to: a number written into it would corrupt it.
    package static func opened() -> ProgressChannel? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFIFO else { return nil }
        return ProgressChannel()
    }

    /// Sends `number` on its own line.
    package func send(_ number: Int) {
        let line = Array("\(number)\n".utf8)
        _ = line.withUnsafeBytes { write(Self.descriptor, $0.baseAddress, $0.count) }
    }
}

/// The child side of every child of the tool: runs a request in this process and writes its reply.
package enum ChildExecution {
    /// The hidden command that runs a request: `persistbench _child REQUEST`.
    package static let commandName = "_child"

    /// Runs the request in the file at `path` (`persistbench _child REQUEST`); a file that is no request is bad input.
    package static func run(requestAt path: String, stores: [StoreKind]) throws -> Bool {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else {
            throw BadInput("cannot read request file '\(path)'")
        }
        guard let request = try? JSONDecoder().decode(ChildRequest.self, from: data) else {
            throw BadInput("'\(path)' is not a child's request")
        }
        return run(request, stores: stores)
    }

    /// Runs `request` and writes its reply.
    ///
    /// Returns false if the job failed (the reply then holds the error).
    package static func run(_ request: ChildRequest, stores: [StoreKind]) -> Bool {
        let progress = request.reportsProgress ? ProgressChannel.opened() : nil
        let reply: ChildReply
        do {
            switch request.job {
            case .cell(let job):
                reply = .cell(try CellExecution.run(job, stores: stores, progress: progress))
            case .crash(let job):
                let (verdict, openSeconds) = try CrashExecution.run(job, stores: stores, progress: progress)
                reply = .crash(verdict: verdict, openSeconds: openSeconds)
            case .secondProcess(let job):
                reply = .secondProcess(try SecondProcess.run(job, stores: stores, progress: progress))
            case .integrity(let job):
                reply = .integrity(
                    try StoreVerification.inspect(
                        try kind(named: job.store, in: stores), directory: URL(fileURLWithPath: job.directory)))
            }
        } catch {
            reply = .failed("\(error)")
        }
        guard FileSystem.writeReport(reply, to: request.replyPath) else { return false }
        if case .failed = reply { return false }
        return true
    }

    /// The store of `name` among `stores`.
    static func kind(named name: String, in stores: [StoreKind]) throws -> StoreKind {
        guard let kind = stores.first(where: { $0.name == name }) else { throw BenchError("no store \(name)") }
        return kind
    }
}
