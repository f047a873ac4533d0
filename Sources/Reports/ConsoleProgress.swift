import Foundation
import PersistenceBench

/// Shows a run's progress: a live, rewritten line on a terminal; one plain line per cell otherwise.
package final class ConsoleProgress: RunObserver {
    private let isTerminal: Bool
    private let descriptor: Int32
    private var label = ""
    private var lastDraw: UInt64 = 0
    /// " · 12 min 05 s elapsed, about 1 h 20 min left", from the runner's last `runProgress`.
    private var timing = ""

    /// Whether `descriptor` is this object's own, closed when it goes.
    private let ownsDescriptor: Bool

    /// Writes to the standard output.
    package init() {
        descriptor = STDOUT_FILENO
        isTerminal = isatty(descriptor) == 1
        ownsDescriptor = false
    }

    /// Writes to a log file made anew at `log`, one plain line per cell.
    package init(log: URL) throws {
        descriptor = open(log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw BenchError.system("opening \(log.path)") }
        isTerminal = false
        ownsDescriptor = true
    }

    deinit { if ownsDescriptor { close(descriptor) } }

    package func fixtureStarted(store: String, fixture: String, scale: Scale) {
        label = "loading \(fixture) fixture for \(store) at \(scale) (untimed)"
        if !isTerminal { emit("       \(label)") }
    }

    package func cellStarted(_ cell: PlannedCell, index: Int, total: Int) {
        label = "[\(index)/\(total)] \(cell.store.name) \(cell.workload.name) \(cell.scale) rep \(cell.repetition)"
    }

    package func progress(elapsedSeconds: Double, recordsDone: Int?) {
        guard isTerminal else { return }
        let now = monotonicNanoseconds()
        guard now - lastDraw > 200_000_000 else { return }
        lastDraw = now
        let records = recordsDone.map { ", \(formatCount(Double($0))) records" } ?? ""
        draw("\(label)  \(String(format: "%.1f", elapsedSeconds)) s\(records)\(timing)")
    }

    package func runProgress(elapsedSeconds: Double, remainingSeconds: Double?) {
        timing =
            " · \(Quantity.formatDuration(elapsedSeconds)) elapsed"
            + (remainingSeconds.map { ", about \(Quantity.formatDuration($0)) left" } ?? "")
    }

    package func cellFinished(_ result: CellResult, index: Int, total: Int) {
        let label = "[\(index)/\(total)] \(result.store) \(result.workload) \(result.scale) rep \(result.repetition)"
        var line: String
        switch result.status {
        case .ok:
            let metrics = result.metrics
            line =
                "\(label): \(formatCount(metrics?.phase.operationsPerSecond ?? 0)) ops/s"
                + " (\(String(format: "%.3f", metrics?.phase.timedSeconds ?? 0)) s timed)"
            if let peak = result.peakRSSBytes { line += ", peak \(Quantity.formatBytes(peak))" }
        case .notApplicable: line = "\(label): n/a"
        case .dnf: line = "\(label): DNF — \(result.reason ?? "")"
        case .error: line = "\(label): ERROR — \(result.reason ?? "")"
        }
        if isTerminal { draw("") }
        emit(line + timing)
    }

    private func draw(_ text: String) {
        write("\r\u{1B}[K" + text)
    }

    private func emit(_ line: String) {
        write(line + "\n")
    }

    // Straight to the file descriptor: unbuffered, so the live line shows at once.
    private func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
    }
}
