/// One keystroke of a search as you type (`search`): the items whose title contains `text`, ASCII
/// case-insensitively: how many, and the first `limit` of them by title (byte-wise), then id.
public struct TitleSearch: Equatable, Sendable {
    public var text: String
    public var limit: Int

    public init(text: String, limit: Int) {
        self.text = text
        self.limit = limit
    }

    /// `%text%` for `LIKE … ESCAPE '\'`: SQLite's `LIKE` folds ASCII case only, which is this question's
    /// definition; `%`, `_` and `\` in the text are escaped.
    public var likePattern: String {
        var pattern = "%"
        for character in text {
            if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }

    /// The shortest text a trigram full-text index answers (SQLite FTS5's `trigram` tokenizer): shorter texts have
    /// no trigram to look up, and a store with such an index answers them as it would without.
    public static let shortestIndexedText = 3

    /// The text as one FTS5 phrase, `"text"` (a `"` doubled): with the `trigram` tokenizer, the rows whose column
    /// contains the text, case folded (`case_sensitive 0`).
    public var fullTextPhrase: String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// The answer to a `TitleSearch`.
public struct TitleSearchAnswer: Equatable, Sendable {
    /// How many items match.
    public var count: Int
    /// The first `limit` of them, by title (byte-wise), then id.
    public var page: [Item]

    public init(count: Int, page: [Item]) {
        self.count = count
        self.page = page
    }

    /// Whether `a` comes before `b` in a page: byte-wise title (SQLite's `BINARY`), then id.
    @inlinable
    public static func precedes(
        title a: UnsafeBufferPointer<UInt8>, id aID: Int64, title b: UnsafeBufferPointer<UInt8>, id bID: Int64
    ) -> Bool {
        let common = Swift.min(a.count, b.count)
        var index = 0
        while index < common {
            if a[index] != b[index] { return a[index] < b[index] }
            index += 1
        }
        return a.count != b.count ? a.count < b.count : aID < bID
    }
}

/// Whether a title contains a search text, ASCII case-insensitively (`A`–`Z` fold to `a`–`z`; every other byte,
/// every byte of a non-ASCII character included, must be equal): what SQLite's `LIKE '%text%'` answers, for the
/// stores that scan titles in their own code.
public struct TitleMatcher: Sendable {
    /// The text's UTF-8 bytes, ASCII letters lowercased.
    @usableFromInline let needle: [UInt8]

    public init(_ text: String) {
        needle = text.utf8.map(Self.folded)
    }

    @inlinable @inline(__always)
    static func folded(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// Whether `title`'s UTF-8 bytes contain the text.
    @inlinable @inline(__always)
    public func matches(_ title: UnsafeBufferPointer<UInt8>) -> Bool {
        needle.withUnsafeBufferPointer { Self.contains($0, in: title) }
    }

    /// Whether `haystack` contains `needle`, both UTF-8, ASCII case-insensitively, with no allocation.
    @inlinable @inline(__always)
    public static func contains(_ needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first.map(folded) else { return true }
        let last = haystack.count - needle.count
        guard last >= 0 else { return false }
        var start = 0
        while start <= last {
            if folded(haystack[start]) == first {
                var offset = 1
                while offset < needle.count, folded(haystack[start + offset]) == folded(needle[offset]) { offset += 1 }
                if offset == needle.count { return true }
            }
            start += 1
        }
        return false
    }
}

/// A scan's answer to a `TitleSearch` under construction: the stores without a query engine offer it every title
/// they hold, and it counts the matches and keeps the first `limit` of them in page order (a bounded insertion,
/// O(N) for N titles, never a sort of every match), each with what the store needs to build the item later.
public struct TitleSearchScan<Reference> {
    public let matcher: TitleMatcher
    public let limit: Int
    public var count = 0
    /// The best matches so far, in page order, at most `limit`.
    @usableFromInline var best: [(title: [UInt8], id: Int64, reference: Reference)] = []

    @inlinable
    public init(_ search: TitleSearch) {
        matcher = TitleMatcher(search.text)
        limit = search.limit
        best.reserveCapacity(search.limit + 1)
    }

    /// Offers one stored item: its title's bytes, its id, and how to find it again (`reference`, called only for
    /// an item that enters the page so far).
    @inlinable @inline(__always)
    public mutating func offer(title: UnsafeBufferPointer<UInt8>, id: Int64, reference: () throws -> Reference) rethrows
    {
        guard matcher.matches(title) else { return }
        count += 1
        guard limit > 0 else { return }
        func comesBefore(_ entry: (title: [UInt8], id: Int64, reference: Reference)) -> Bool {
            entry.title.withUnsafeBufferPointer {
                TitleSearchAnswer.precedes(title: title, id: id, title: $0, id: entry.id)
            }
        }
        if best.count == limit, let worst = best.last, !comesBefore(worst) { return }
        let place = best.firstIndex(where: comesBefore) ?? best.endIndex
        best.insert((Array(title), id, try reference()), at: place)
        if best.count > limit { best.removeLast() }
    }

    /// Offers one stored item by its title.
    @inlinable
    public mutating func offer(title: String, id: Int64, reference: () throws -> Reference) rethrows {
        var title = title
        try title.withUTF8 { try offer(title: $0, id: id, reference: reference) }
    }

    /// The references of the page, in page order.
    @inlinable
    public var page: [Reference] { best.map(\.reference) }
}
