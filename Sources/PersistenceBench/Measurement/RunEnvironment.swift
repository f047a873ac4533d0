import Foundation

/// The machine and software a run measured, recorded once per run.
package struct RunEnvironment: Codable, Equatable, Sendable {
    package var cpuModel: String
    package var cores: Int
    package var memoryBytes: Int64
    package var kernel: String
    package var hostname: String
    /// This boot of this machine (`/proc/sys/kernel/random/boot_id`): two runs with the same one ran on the same
    /// machine, on the same host and kernel, which a comparison judges with its closest bands.
    ///
    /// Nil where the kernel does not say, and in results recorded before it was.
    package var bootID: String?
    /// Each block device's read-ahead in KiB (`/sys/block/*/queue/read_ahead_kb`; loop and RAM devices left out):
    /// how much a cold fault on a mapped page, or a read, brings in around it.
    ///
    /// A mapped store's first lookups after an open pay for it (8 MiB on one host of this class against 128 KiB on
    /// another). Nil where the kernel does not say, and in results recorded before 2026-11-28.
    package var readAheadKilobytes: [String: Int]?
    /// The compiler that built this tool.
    package var swift: String
    /// Each store's engine and version as linked at run time ("sqlite": "SQLite 3.40.1").
    package var engines: [String: String]
    /// Each store's configuration (`StoreKind.configuration`): pragmas, caches, maps.
    ///
    /// Nil in results recorded before it was.
    package var configurations: [String: String]?
    /// `git describe`-style commit of the working directory, with `-dirty` when it has local changes.
    package var gitCommit: String
    /// Per store that declares any, the counters its kind declares scheduling-dependent (by their names in a
    /// counter check, "system calls/op") and why: a counter check judges a declaration its baseline did not record as
    /// a regression, so that a declaration is made with its baseline, not slipped in.
    ///
    /// Nil where none does, and in results recorded before 2026-12-07.
    package var schedulingDependent: [String: [String: String]]?
    /// PersistenceBench's own commit, `git describe`-style, where the tool was built in another package (a store of
    /// your own: the working directory's commit is that package's): read from the checkout its sources were built
    /// from.
    ///
    /// Nil where they are the working directory's, and in results recorded before 2026-12-07.
    package var persistenceBenchCommit: String?
    /// The exact command line, shell-quoted.
    package var command: String

    package init(
        cpuModel: String, cores: Int, memoryBytes: Int64, kernel: String, hostname: String, swift: String,
        engines: [String: String], configurations: [String: String]? = nil, gitCommit: String, command: String,
        bootID: String? = nil, readAheadKilobytes: [String: Int]? = nil
    ) {
        self.readAheadKilobytes = readAheadKilobytes
        self.cpuModel = cpuModel
        self.cores = cores
        self.memoryBytes = memoryBytes
        self.kernel = kernel
        self.hostname = hostname
        self.swift = swift
        self.engines = engines
        self.configurations = configurations
        self.gitCommit = gitCommit
        self.command = command
        self.bootID = bootID
    }

    /// Reads the current machine's facts.
    ///
    /// `output`: the run's directory, whose files (a committed baseline made again, cleared before the run starts) do
    /// not make the checkout's commit "-dirty".
    package static func current(stores: [StoreKind], arguments: [String], output: URL? = nil) -> RunEnvironment {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let memoryKiB =
            meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { Int64($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var names = utsname()
        uname(&names)
        let kernel = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let system = withUnsafeBytes(of: &names.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var engines: [String: String] = [:]
        for store in stores { engines[store.name] = store.engine() }
        var environment = RunEnvironment(
            cpuModel: model, cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), memoryBytes: memoryKiB * 1024,
            kernel: "\(system) \(kernel)", hostname: ProcessInfo.processInfo.hostName, swift: compilerVersion,
            engines: engines,
            configurations: Dictionary(uniqueKeysWithValues: stores.map { ($0.name, $0.configuration) }),
            gitCommit: gitCommit(excluding: output),
            command: (settings() + arguments.map(shellQuoted)).joined(separator: " "),
            bootID: (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }, readAheadKilobytes: readAhead())
        environment.persistenceBenchCommit = persistenceBenchCommit()
        let declared = stores.filter { !$0.schedulingDependent.isEmpty }.map { store in
            (
                store.name,
                Dictionary(uniqueKeysWithValues: store.schedulingDependent.map { ($0.key.rawValue, $0.value) })
            )
        }
        environment.schedulingDependent = declared.isEmpty ? nil : Dictionary(uniqueKeysWithValues: declared)
        return environment
    }

    /// The environment's settings that change what a cell measures, as the shell would set them before the command
    /// (`GLIBC_TUNABLES=glibc.malloc.trim_threshold=…`): every child inherits them, so the recorded command holds them
    /// and runs again as it ran.
    static func settings(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        measuredSettings.compactMap { name in environment[name].map { "\(name)=\(shellQuoted($0))" } }
    }

    /// glibc's allocator settings: its tunables, and the older variables it still reads.
    static let measuredSettings = [
        "GLIBC_TUNABLES", "MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
    ]

    /// `readAheadKilobytes` as the kernel says it now; nil where there is no `/sys/block`.
    package static func readAhead(in blocks: String = "/sys/block") -> [String: Int]? {
        guard let devices = try? FileManager.default.contentsOfDirectory(atPath: blocks) else { return nil }
        var found: [String: Int] = [:]
        for device in devices where !device.hasPrefix("loop") && !device.hasPrefix("ram") {
            let path = "\(blocks)/\(device)/queue/read_ahead_kb"
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                let kilobytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { continue }
            found[device] = kilobytes
        }
        return found.isEmpty ? nil : found
    }

    /// The Swift compiler that built this binary, to the patch level where it can be told at compile time.
    package static var compilerVersion: String {
        #if compiler(>=6.4)
            return "Swift 6.4 or later"
        #elseif compiler(>=6.3.1)
            return "Swift 6.3.1"
        #elseif compiler(>=6.3)
            return "Swift 6.3"
        #elseif compiler(>=6.2)
            return "Swift 6.2"
        #else
            return "Swift 6.1 or earlier"
        #endif
    }

    /// The commit of the checkout at `directory` (the working directory's when nil), "-dirty" with changes to its
    /// tracked files outside `excluded`.
    private static func gitCommit(in directory: String? = nil, excluding excluded: URL? = nil) -> String {
        let git = ["git"] + (directory.map { ["-C", $0] } ?? [])
        guard let head = try? Subprocess.output(of: git + ["rev-parse", "--short=12", "HEAD"]),
            !head.isEmpty
        else { return "unknown (not a git checkout)" }
        let paths = excluded.map { ["--", ".", ":(exclude)\($0.standardizedFileURL.path)"] } ?? []
        let status =
            (try? Subprocess.output(of: git + ["status", "--porcelain", "--untracked-files=no"] + paths)) ?? ""
        return status.isEmpty ? head : "\(head)-dirty"
    }

    /// PersistenceBench's commit when its checkout (where this file was compiled from: a clone depended on by path,
    /// or SwiftPM's checkout of it) is not the one `workingDirectory` is in; "unknown" when its sources are gone.
    package static func persistenceBenchCommit(
        source: String = #filePath, workingDirectory: String = FileManager.default.currentDirectoryPath
    ) -> String? {
        let root = { (directory: String) in
            try? Subprocess.output(of: ["git", "-C", directory, "rev-parse", "--show-toplevel"])
        }
        let sources = URL(fileURLWithPath: source).deletingLastPathComponent().path
        guard let own = root(sources) else { return "unknown (its sources, \(sources), are not a git checkout here)" }
        return own == root(workingDirectory) ? nil : gitCommit(in: own)
    }

    /// What makes two environments builds of different code (commit, compiler, engines), one phrase each; empty
    /// when they are one build's.
    ///
    /// A run is one build: merging refuses shards of two, and resuming a run from another.
    package static func buildDifferences(_ one: RunEnvironment, _ other: RunEnvironment) -> [String] {
        var found: [String] = []
        func compare<Value: Equatable>(_ what: String, _ value: (RunEnvironment) -> Value) {
            if value(one) != value(other) { found.append("\(what) differ (\(value(one)) and \(value(other)))") }
        }
        compare("commits") { $0.gitCommit }
        compare("PersistenceBench commits") { $0.persistenceBenchCommit ?? "the working directory's" }
        compare("compilers") { $0.swift }
        // Each names the engines of the stores it ran (a part of a run may run some): compared where both name one.
        let shared = Set(one.engines.keys).intersection(other.engines.keys)
        compare("engines") {
            $0.engines.filter { shared.contains($0.key) }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        }
        return found
    }

    /// Quotes an argument for a POSIX shell when it needs it.
    package static func shellQuoted(_ argument: String) -> String {
        let safe = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=,:+@%".contains($0) }
        if safe && !argument.isEmpty { return argument }
        return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
