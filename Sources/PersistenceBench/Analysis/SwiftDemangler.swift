import Foundation

/// Swift's own demangler, from the runtime this process runs on (`swift_demangle`), for the names callgrind and
/// llvm-symbolizer give mangled; a name it does not know is returned as it is.
package enum SwiftDemangler {
    private typealias Demangle =
        @convention(c) (
            UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UInt32
        ) -> UnsafeMutablePointer<CChar>?

    private static let function: Demangle? = dlsym(nil, "swift_demangle").map {
        unsafeBitCast($0, to: Demangle.self)
    }

    /// `name` demangled and shortened for a frame's label: "GRDBItemStore.item(id:)", "closure #1 in
    /// GetWorkload.run(on:context:)".
    package static func frameName(_ name: String) -> String {
        guard name.hasPrefix("$s") || name.hasPrefix("_$s"), let function else { return name }
        guard let demangled = name.withCString({ function($0, strlen($0), nil, nil, 0) }) else { return name }
        defer { free(demangled) }
        return shortened(String(cString: demangled))
    }

    /// Words before a name that say how the compiler made this copy of it, each followed by its details in angle
    /// brackets and " of ".
    private static let derivations = [
        "function signature specialization ", "generic specialization ", "specialized ", "merged ",
        "partial apply for ", "reabstraction thunk helper ", "outlined copy of ", "static ",
    ]

    /// The last name of a dotted path that says only which accessor it is; the two names before it stay.
    private static let accessors: Set<Substring> = [
        "getter", "setter", "modify", "read", "_modify", "_read", "unsafeAddressor", "unsafeMutableAddressor",
        "didset", "willset",
    ]

    /// A demangled name without what a frame's label does not need: the compiler's specialization and thunk
    /// prefixes, a witness's conformance, extensions' and private declarations' qualifiers, module and outer type
    /// names (the last two dotted names stay, three for an accessor), generic constraints, argument types (their
    /// labels stay) and the result type.
    package static func shortened(_ full: String) -> String {
        var text = Substring(withoutQualifiers(full))
        var prefix = ""
        while true {
            let before = text
            for phrase in derivations where text.hasPrefix(phrase) {
                text = text.dropFirst(phrase.count)
                if text.hasPrefix("<"), let close = matching(text, from: text.startIndex) {
                    text = text[text.index(after: close)...]
                }
                if text.hasPrefix(" of ") { text = text.dropFirst(4) }
                if text.hasPrefix("of ") { text = text.dropFirst(3) }
                // "reabstraction thunk helper from @callee_guaranteed () -> …": its types say nothing of use.
                if text.hasPrefix("from @") { return prefix + "reabstraction thunk" }
            }
            if text.hasPrefix("protocol witness for ") {
                text = text.dropFirst("protocol witness for ".count)
                if let conformance = text.range(of: " in conformance ") { text = text[..<conformance.lowerBound] }
            }
            // "closure #1 (Swift.Int) throws -> () in …": kept as "closure #1 in …", the function it is in shortened.
            if text.hasPrefix("closure #") || text.hasPrefix("implicit closure #"),
                let number = text.range(of: "#")?.upperBound, let space = text[number...].firstIndex(of: " "),
                let inFunction = topLevel(" in ", of: text[space...])
            {
                prefix += text[..<space] + " in "
                text = text[inFunction.upperBound...]
            }
            // "type metadata accessor for …", "outlined destroy of …": the words kept, what they are for shortened.
            if let joint = [topLevel(" for ", of: text), topLevel(" of ", of: text)].compactMap({ $0 }).min(by: {
                $0.lowerBound < $1.lowerBound
            }), text[..<joint.lowerBound].allSatisfy({ $0.isLetter || $0 == " " || $0 == "-" }) {
                prefix += text[..<joint.upperBound]
                text = text[joint.upperBound...]
            }
            if text == before { break }
        }
        // The name up to its argument list (or the " : " of an accessor's type), and the labels of that list.
        let open = topLevel("(", of: text)?.lowerBound
        let typed = topLevel(" : ", of: text)?.lowerBound
        let nameEnd = [open, typed, topLevel(" ", of: text)?.lowerBound].compactMap { $0 }.min() ?? text.endIndex
        var labels = ""
        if let open, open == nameEnd, let close = matching(text, from: open) {
            let arguments = text[text.index(after: open)..<close]
            labels =
                arguments.isEmpty
                ? "()"
                : "("
                    + topLevelParts(arguments).map { part in
                        part.firstIndex(of: ":").map { part[..<$0].trimmingCharacters(in: .whitespaces) + ":" }
                            ?? "_:"
                    }.joined() + ")"
        }
        let components = topLevelParts(withoutConstraints(text[..<nameEnd]), separator: ".")
        let kept = components.last.map { accessors.contains($0) } == true ? 3 : 2
        return prefix + components.suffix(kept).joined(separator: ".") + labels
    }

    /// `name` without an async part's number, without "(extension in GRDB):", and with "(Box in _53FB…)", a private declaration, as "Box".
    private static func withoutQualifiers(_ name: String) -> String {
        var text = name
        // "(2) await resume partial function for …": an async function's parts are numbered.
        if let number = text.range(of: #"^\([0-9]+\) "#, options: .regularExpression) { text.removeSubrange(number) }
        while let start = text.range(of: "(extension in "), let end = text[start.upperBound...].range(of: "):") {
            text.removeSubrange(start.lowerBound..<end.upperBound)
        }
        while let privateName = text.range(of: #"\(([A-Za-z0-9_]+) in _[0-9A-F]+\)"#, options: .regularExpression) {
            let inner = text[privateName].dropFirst().prefix { $0 != " " }
            text.replaceSubrange(privateName, with: inner)
        }
        return text
    }

    /// `name` with each generic clause's constraints left out: "replaceSubrange<A where A == A1.Element>" →
    /// "replaceSubrange<A>".
    private static func withoutConstraints(_ name: Substring) -> Substring {
        var text = name
        while let clause = text.range(of: " where "), let open = text[..<clause.lowerBound].lastIndex(of: "<"),
            let close = matching(text, from: open)
        {
            text = text[..<clause.lowerBound] + text[close...]
        }
        return text
    }

    /// The first occurrence of `needle` in `text` outside brackets.
    private static func topLevel(_ needle: String, of text: Substring) -> Range<Substring.Index>? {
        var depth = 0
        var index = text.startIndex
        while index < text.endIndex {
            if depth == 0, text[index...].hasPrefix(needle) { return index..<text.index(index, offsetBy: needle.count) }
            depth += change(in: text, at: index)
            index = text.index(after: index)
        }
        return nil
    }

    /// How the bracket depth changes at `index`: "(", "<", "[" open; ")", ">" (but not "->'s"), "]" close.
    private static func change(in text: Substring, at index: Substring.Index) -> Int {
        switch text[index] {
        case "(", "<", "[": 1
        case ")", "]": -1
        case ">" where index > text.startIndex && text[text.index(before: index)] != "-": -1
        default: 0
        }
    }

    /// The index of the bracket that closes the one at `open` ("(" or "<"), or nil.
    private static func matching(_ text: Substring, from open: Substring.Index) -> Substring.Index? {
        var depth = 0
        var index = open
        while index < text.endIndex {
            depth += change(in: text, at: index)
            if depth == 0 { return index }
            index = text.index(after: index)
        }
        return nil
    }

    /// `text` split at its top-level `separator`s (commas: an argument list; dots: a dotted name).
    private static func topLevelParts(_ text: Substring, separator: Character = ",") -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            if depth == 0, text[index] == separator {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
            depth += change(in: text, at: index)
            index = text.index(after: index)
        }
        if start < text.endIndex { parts.append(text[start...]) }
        return parts
    }
}
