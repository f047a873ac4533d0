import Foundation

/// The tool built from another revision of this repository, for `check --base`: checked out in a git worktree
/// under the repository's .build/check-base/ and built in release the way this tool was (the same package within
/// the repository: the root's, or Benchmarks/'s as CI builds it).
///
/// The worktree and its build are kept, so that a later check of the same or a nearby revision rebuilds only what
/// changed.
package enum BaseBuild {
    /// The base's tool and the commit it was built from.
    ///
    /// Bad input (no repository, an unknown revision) is a `BadInput`; a failed build names its log. `say` is told what
    /// it does.
    package static func executable(revision: String, say: (String) -> Void) throws -> (path: String, commit: String) {
        let tool = try Executable.path()
        guard let range = tool.range(of: "/.build/") else {
            throw BadInput("--base needs this tool built by SwiftPM (under a package's .build/), not \(tool)")
        }
        let package = String(tool[..<range.lowerBound])
        guard let top = try? git(["rev-parse", "--show-toplevel"], in: package) else {
            throw BadInput("--base needs the git repository this tool was built from; \(package) is not in one")
        }
        guard let commit = try? git(["rev-parse", "--verify", "--quiet", "\(revision)^{commit}"], in: top) else {
            throw BadInput(
                "unknown revision '\(revision)' in \(top) (a shallow clone may lack it: `git fetch --deepen=1`)")
        }
        if let current = current(), !current.changed,
            (try? git(["diff", "--quiet", commit, current.commit, "--"] + outsideTheBuild, in: top)) != nil
        {
            say(
                "The base \(revision) (\(commit.prefix(12))) differs from this build's commit at most in docs/, results/ "
                    + "and Markdown files, which no build reads: its tool is this one, not built again")
            return (tool, commit)
        }
        let relative = package == top ? "" : String(package.dropFirst(top.count + 1))
        let cache = URL(fileURLWithPath: top).appendingPathComponent(".build/check-base")
        let worktree = cache.appendingPathComponent("worktree")
        if FileManager.default.fileExists(atPath: worktree.appendingPathComponent(".git").path) {
            _ = try git(["checkout", "--quiet", "--detach", "--force", commit], in: worktree.path)
            _ = try git(["clean", "--quiet", "-fd"], in: worktree.path)
        } else {
            try FileSystem.remove(worktree)
            try FileSystem.makeDirectory(cache)
            _ = try git(["worktree", "prune"], in: top)
            _ = try git(["worktree", "add", "--quiet", "--detach", "--force", worktree.path, commit], in: top)
        }
        let packageDirectory = relative.isEmpty ? worktree : worktree.appendingPathComponent(relative)
        let log = cache.appendingPathComponent("build.log")
        say("Building the base \(revision) (\(commit.prefix(12))) in \(packageDirectory.path); log: \(log.path)")
        // This tool's product: `persistbench`, or the executable of a package that adds its own stores.
        let product = URL(fileURLWithPath: tool).lastPathComponent
        let built = try run(
            ["swift", "build", "-c", "release", "--product", product], in: packageDirectory.path, log: log.path)
        guard built == 0 else {
            throw BenchError("the base \(revision) did not build (exit status \(built)); its log: \(log.path)")
        }
        return (packageDirectory.appendingPathComponent(".build/release/\(product)").path, commit)
    }

    /// The two builds of a time check, each with its label for the summary: the base's tool (`baseTool`, else
    /// `revision` built, `executable(revision:say:)`) and this one, called an A/A run when it is the same source.
    package static func sides(revision: String?, baseTool: String?, say: (String) -> Void) throws -> (
        executables: Sides<String>, labels: Sides<String>
    ) {
        let tool = try Executable.path()
        let current = current()
        var label = current.map { "this build (\($0.commit.prefix(12))\($0.changed ? " with changes" : ""))" }
        if let baseTool {
            return (Sides(base: baseTool, current: tool), Sides(base: "`\(baseTool)`", current: label ?? "this build"))
        }
        guard let revision else { throw BadInput("the time check needs --base or --base-tool") }
        let built = try executable(revision: revision, say: say)
        if let current, !current.changed, current.commit == built.commit || built.path == tool {
            label? += ", the same source: an A/A run, whose every ratio is this machine's noise"
        }
        return (
            Sides(base: built.path, current: tool),
            Sides(base: "\(revision) (\(built.commit.prefix(12)))", current: label ?? "this build")
        )
    }

    /// What no build reads: a base that differs from this build's clean commit only here builds this same tool.
    static let outsideTheBuild = [".", ":(exclude)results", ":(exclude)docs", ":(exclude)*.md"]

    /// The commit of this tool's working tree and whether the tree has changes; nil outside a repository.
    package static func current() -> (commit: String, changed: Bool)? {
        let tool = (try? Executable.path()) ?? ""
        let package = tool.range(of: "/.build/").map { String(tool[..<$0.lowerBound]) } ?? "."
        guard let commit = try? git(["rev-parse", "HEAD"], in: package) else { return nil }
        let changed = (try? git(["status", "--porcelain", "--untracked-files=no"], in: package))?.isEmpty == false
        return (commit, changed)
    }

    /// git's standard output, trimmed; throws when it fails.
    private static func git(_ arguments: [String], in directory: String) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("persistbench-git-\(getpid())")
        defer { try? FileManager.default.removeItem(at: output) }
        guard try run(["git"] + arguments, in: directory, log: output.path) == 0 else {
            throw BenchError("git \(arguments.joined(separator: " ")) failed in \(directory)")
        }
        return (try String(contentsOf: output, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a command found on the PATH in `directory`, its output to `log`; returns its exit status.
    private static func run(_ arguments: [String], in directory: String, log: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
