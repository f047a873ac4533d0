import Foundation

/// A path of the same length in every counted run that leads to its work directory: a symbolic link in /tmp (not
/// `$TMPDIR`, whose length differs between hosts), named with 16 random hexadecimal digits, removed with this value.
///
/// A store that builds a path for every operation (a file per record) spends instructions and allocations on the
/// path's length: counted under the work directory itself, `files` counted 2.5–4.7 % fewer instructions per
/// operation with `--out /tmp/fb-check` than with its baseline's longer path, and half an allocation more per
/// insert with `/tmp/fb-check2`. Through the link,
/// the baseline's path and a check's, on any machine, are as long; the files stay on the work directory's file
/// system.
final class CountedPath {
    let url: URL

    init(to directory: URL) throws {
        let name = "persistbench-counted-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)
        url = URL(fileURLWithPath: "/tmp").appendingPathComponent(name.lowercased())
        try FileManager.default.createSymbolicLink(at: url, withDestinationURL: directory.standardizedFileURL)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
