import Foundation

/// The ranges the command line's numbers must fall in, checked when the options are parsed (exit 2, one line):
/// past them a conversion traps (a duration of five million hours overflows a count of nanoseconds, a delay of
/// 10^11 ms a product), or a run asks for what no machine here does.
package enum OptionBounds {
    /// Durations: budgets, time boxes, floor times, the time check's power time.
    ///
    /// A week at most.
    package static let durationSeconds: ClosedRange<Double> = 0.001...(7 * 86_400)
    /// `--repetitions`.
    package static let repetitions = 1...1_000
    /// `--batch-size`: records per write transaction.
    package static let batchSize = 1...10_000_000
    /// `--jobs`: processes counting at once.
    package static let jobs = 1...64
    /// `crash`'s `--kills`, `--power-loss`, `--faults` and `--corruptions`, each.
    package static let crashTrials = 0...100_000
    /// `crash --transactions`.
    package static let transactions = 1...100_000
    /// `crash --scale`: each crash state is a copy of a store this large.
    package static let crashScale = 1...10_000_000
    /// `crash --max-delay`, in milliseconds: an hour.
    package static let killDelayMilliseconds = 0...3_600_000

    /// `duration`'s range in words, for an error message.
    package static let durationRange = "from 1ms to 7 days (168h)"

    /// `value` of `option`, or `BadInput` naming it and `range`.
    package static func count(_ value: Int, option: String, in range: ClosedRange<Int>, unit: String = "") throws {
        guard range.contains(value) else {
            throw BadInput("invalid \(option) \(value): \(unit)from \(range.lowerBound) to \(range.upperBound)")
        }
    }
}

/// What a run will need of its output's disk, before it starts: a fixture of each store at the largest scale, and
/// the cell's copy of the largest (`run --keep-stores` keeps one more copy a cell).
package enum DiskEstimate {
    /// Bytes an item takes in a store, at most: the most any store took in the 10k–10M sweep of 2026-11-27 was
    /// 347 (`lmdb` at 100k; `packed` 176, `sqlite` 200, `orm+swiftdata` 259).
    package static let bytesPerItem = 400.0

    /// Bytes a record of `shape` takes in a store, estimated: its expected size half again, and 200 bytes of keys,
    /// indexes and pages.
    package static func bytesPerRecord(_ shape: RecordShape?) -> Double {
        shape.map { 200 + 1.5 * $0.expectedBytes } ?? bytesPerItem
    }

    /// The bytes `configuration` may need at once: its fixtures' (in the fixture cache, or the output directory
    /// without one) and its cells' copies (in the output directory).
    package static func bytes(of configuration: RunConfiguration) -> (fixtures: Double, cells: Double) {
        let perStore = Double(configuration.scales.map(\.records).max() ?? 0) * bytesPerRecord(configuration.shape)
        let stores = Double(configuration.stores.count)
        return (perStore * stores, perStore * (1 + (configuration.keepStores ? stores : 0)))
    }

    /// Bad input when `configuration`'s estimate exceeds the free space of the file systems its output `directory`
    /// and its fixture cache are (or will be made) on: those of their nearest existing ancestors.
    package static func requireRoom(for configuration: RunConfiguration, in directory: URL) throws {
        let needed = bytes(of: configuration)
        let outside = configuration.fixtureCache.map { URL(fileURLWithPath: $0.directory) }
        guard let output = fileSystem(of: directory) else { return }
        let cache = outside.flatMap(fileSystem(of:))
        let together = cache == nil || cache?.id == output.id
        let what =
            "\(configuration.stores.count) store\(configuration.stores.count == 1 ? "" : "s") at "
            + "\(configuration.scales.max().map { "\($0)" } ?? "") records, about "
            + "\(Int(bytesPerRecord(configuration.shape))) bytes a record each"
        func refuse(_ bytes: Double, in place: URL, free: Double, of what: String, use advice: String) throws {
            guard bytes > free else { return }
            throw BadInput(
                "the run may need \(Quantity.formatBytes(Int64(min(bytes, 0x1p62)))) in '\(place.path)' (\(what)), "
                    + "and its file system has \(Quantity.formatBytes(Int64(free))) free: use \(advice)")
        }
        let advice = "smaller --scales, fewer --stores, or --ignore-free-space"
        if together {
            let bytes = needed.cells + (outside == nil || cache != nil ? needed.fixtures : 0)
            try refuse(bytes, in: directory, free: output.free, of: what + ", and a cell's copy", use: advice)
        } else if let cache, let outside {
            try refuse(needed.cells, in: directory, free: output.free, of: "a cell's copy: " + what, use: advice)
            try refuse(
                needed.fixtures, in: outside, free: cache.free, of: "the fixtures of " + what,
                use: "--fixtures elsewhere, " + advice)
        }
    }

    /// The file system `url` is (or will be made) on, that of its nearest existing ancestor: its id and free bytes.
    private static func fileSystem(of url: URL) -> (id: UInt, free: Double)? {
        var existing = url.standardizedFileURL
        while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
            existing.deleteLastPathComponent()
        }
        var status = statvfs()
        guard statvfs(existing.path, &status) == 0 else { return nil }
        return (UInt(status.f_fsid), Double(status.f_bavail) * Double(status.f_frsize))
    }
}
