import Foundation
import PersistenceBench

/// An untimed build's settings for a SQLite connection (a fixture's load, `FastBuildingStore`): they change how fast
/// the file is written, not what it holds.
///
/// Commits do not sync (`synchronous=OFF`) and the page cache grows to the build's; WAL stays on (the journal mode is
/// in the file's header). The store's settle checkpoints the log after the load, and `finish` then puts the
/// connection's own settings back and syncs the database file once: a checkpoint whose frames an earlier one already
/// copied syncs nothing, whatever `synchronous` says.
package enum SQLiteBuild {
    /// Switches a connection (its pragmas read by `read`, its SQL run by `execute`) to the build's settings, with a
    /// page cache of `cacheBytes` or its own when larger (`sqlite+tuned`'s); returns the SQL that puts its own back.
    package static func start(
        cacheBytes: Int, read: (String) throws -> String, execute: (String) throws -> Void
    ) throws -> String {
        let (synchronous, cacheSize) = (try read("synchronous"), try read("cache_size"))
        // cache_size: -N is N KiB, N is N pages.
        let own = Int(cacheSize) ?? 0
        let ownKiB = own < 0 ? -own : own * (Int(try read("page_size")) ?? 4_096) / 1_024
        try execute("PRAGMA synchronous = OFF; PRAGMA cache_size = -\(max(cacheBytes / 1_024, ownKiB))")
        return "PRAGMA synchronous = \(synchronous); PRAGMA cache_size = \(cacheSize)"
    }

    /// Puts the connection's own settings back (`restoring`, from `start`) and syncs the database at `path`.
    package static func finish(restoring settings: String, path: String, execute: (String) throws -> Void) throws {
        try execute(settings)
        try FileSystem.syncFile(URL(fileURLWithPath: path))
    }
}

extension SQLiteConnection {
    /// A pragma's value as text: "2" for `synchronous`, "-2000" for `cache_size`.
    package func pragma(_ name: String) throws -> String {
        let statement = try prepare("PRAGMA \(name)")
        defer { statement.finalize() }
        guard try statement.step() else { throw BenchError("no value for PRAGMA \(name)") }
        return statement.text(at: 0)
    }

    /// Switches the connection to the build's settings until `finishBuild()` (`SQLiteBuild`); a second call while
    /// they hold does nothing.
    package func startBuild(cacheBytes: Int) throws {
        guard settingsBeforeBuild == nil else { return }
        settingsBeforeBuild = try SQLiteBuild.start(cacheBytes: cacheBytes, read: pragma, execute: execute)
    }

    /// Puts the connection's own settings back and syncs its database (`SQLiteBuild.finish`).
    package func finishBuild() throws {
        guard let settings = settingsBeforeBuild else { return }
        settingsBeforeBuild = nil
        try SQLiteBuild.finish(restoring: settings, path: path, execute: execute)
    }
}
