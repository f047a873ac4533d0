import Foundation

/// `check --counters`' runs: the counted baselines, and the runs judged against them.
///
/// Each baseline's matrix is counted again into `out` (into a directory of its own name under `out` when there are
/// several), or the finished runs `current` names are judged instead, one per baseline. Several baselines are
/// several matrices of one gate: their cells are joined and judged together.
package struct CounterCheck {
    /// The baselines as named, each with its results.
    package let baselines: [(path: String, results: RunResults)]
    /// The finished runs to judge, one per baseline; empty when the baselines are counted again now.
    package let current: [String]
    /// Where the runs counted now are written.
    package let out: String

    /// The check of `baselines`, or bad input naming what cannot be checked.
    package init(baselines: [String], current: [String], out: String) throws {
        guard current.isEmpty || current.count == baselines.count else {
            throw BadInput(
                "--current names \(current.count) run(s) for \(baselines.count) --counters baseline(s): one each")
        }
        guard Set(baselines.map(Self.directoryName)).count == baselines.count else {
            throw BadInput("--counters baselines need distinct directory names: each is counted into one")
        }
        self.baselines = try baselines.map { path in
            let results = try RunResults.load(named: path)
            guard results.configuration.counted == true else {
                throw BadInput("--counters \(path) is not a counted run (made without `run --count`)")
            }
            return (path, results)
        }
        (self.current, self.out) = (current, out)
    }

    /// The directory names this check writes under `out`: one a baseline when there are several.
    package var ownedNames: Set<String> {
        baselines.count > 1 ? Set(baselines.map { Self.directoryName($0.path) }) : []
    }

    /// Where the runs judged are: `current`'s directories, or where each baseline is counted under `out`.
    package var outputs: [URL] {
        guard current.isEmpty else { return current.map(Self.runDirectory) }
        let directory = Self.currentDirectory(current: current, out: out)
        guard baselines.count > 1 else { return [directory] }
        return baselines.map { directory.appendingPathComponent(Self.directoryName($0.path)) }
    }

    /// The baselines joined into the one run the check judges against.
    package func baseline() throws -> RunResults { try RunResults.joining(baselines.map(\.results)) }

    /// The runs judged, joined: each baseline's matrix (`sessions`, resolved from its own configuration) counted
    /// again into its directory of `outputs` by `jobs` processes at once, or `current`'s runs read.
    package func now(sessions: [RunSession], jobs: Int) throws -> RunResults {
        guard current.isEmpty else { return try RunResults.joining(current.map { try RunResults.load(named: $0) }) }
        return try RunResults.joining(
            zip(sessions, outputs).map { session, output in try session.count(output: output, jobs: jobs) })
    }

    /// What the summary calls each side.
    package var labels: Sides<String> {
        Sides(
            base: baselines.map(\.path).joined(separator: ", "),
            current: current.isEmpty ? out : current.joined(separator: ", "))
    }

    /// Each baseline's directory beside the directory of the run judged against it.
    package var runs: [Sides<URL>] {
        zip(baselines, outputs).map { Sides(base: Self.runDirectory($0.path), current: $1) }
    }

    /// The current run's directory: `current`'s one run (or the directory of its results.json), else `out`.
    package static func currentDirectory(current: [String], out: String) -> URL {
        guard current.count == 1 else { return URL(fileURLWithPath: out) }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: current[0], isDirectory: &isDirectory)
        let url = URL(fileURLWithPath: current[0])
        return exists && isDirectory.boolValue ? url : url.deletingLastPathComponent()
    }

    /// A run's directory: `path`, or the directory of `path`'s results.json.
    private static func runDirectory(_ path: String) -> URL {
        let url = URL(fileURLWithPath: path)
        return url.pathExtension == "json" ? url.deletingLastPathComponent() : url
    }

    /// A baseline's directory name ("counter-baseline" for results/counter-baseline or its results.json): where its
    /// matrix is counted under `out` when there are several.
    private static func directoryName(_ path: String) -> String { runDirectory(path).lastPathComponent }
}
