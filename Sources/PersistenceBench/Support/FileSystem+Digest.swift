import Foundation

extension FileSystem {
    /// The digest of everything under `directory` (each regular file's path relative to it, in order, then its
    /// bytes) and the bytes it holds: what a cached fixture is checked against before it is reused.
    package static func contentDigest(of directory: URL) throws -> (digest: Digest, bytes: Int64) {
        var digest = Digest()
        var total: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        let base = directory.standardizedFileURL.path + "/"
        for path in try regularFiles(under: directory).map({ $0.standardizedFileURL.path }).sorted() {
            let name = path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path
            Array(name.utf8).withUnsafeBytes { digest.add(bytes: $0) }
            total += try add(contentsOf: path, to: &digest, buffer: &buffer)
        }
        return (digest, total)
    }

    /// The digest of one file's bytes (an executable's, which keys the fixtures it loads).
    package static func contentDigest(ofFile file: URL) throws -> Digest {
        var digest = Digest()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        _ = try add(contentsOf: file.path, to: &digest, buffer: &buffer)
        return digest
    }

    /// Adds the file at `path` to `digest` a buffer at a time; its bytes.
    private static func add(contentsOf path: String, to digest: inout Digest, buffer: inout [UInt8]) throws -> Int64 {
        var total: Int64 = 0
        try withDescriptor(of: URL(fileURLWithPath: path), flags: O_RDONLY) { descriptor in
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw BenchError.system("reading \(path)") }
                if count == 0 { break }
                buffer.withUnsafeBytes { digest.add(bytes: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                total += Int64(count)
            }
        }
        return total
    }
}
