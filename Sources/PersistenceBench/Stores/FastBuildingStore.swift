/// A store whose untimed fixture build may run with settings that change how fast its files are written, never what
/// they hold or how they are laid out: no sync until the build's end, then one, and a larger page cache.
///
/// `CellExecution.loadFixture` calls `startBuild(cacheBytes:)` after the open; after the load it settles the store
/// (`Store.settle()`) and calls `finishBuild()`, then closes it. The cell opens its copy of the files with the store's
/// everyday settings, as every store's files are opened. A store that does not conform is built with its everyday
/// settings. `FastBuildTests` builds each fixture of each conforming store both ways and compares the files.
package protocol FastBuildingStore: Store {
    /// Switches to the build's settings: commits that do not sync, a page cache of up to `cacheBytes`.
    func startBuild(cacheBytes: Int) throws

    /// Switches back to the everyday settings and syncs what the build's commits and settle did not.
    func finishBuild() throws
}

/// The page cache a fixture build may take: 512 MiB, or an eighth of the memory budget the build's process runs
/// under, whichever is less (an ORM's objects, held until its save, need the rest).
package enum FixtureBuild {
    package static func cacheBytes(memoryBudget: Int64) -> Int {
        Int(min(512 << 20, memoryBudget / 8))
    }
}
