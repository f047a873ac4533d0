import Foundation

/// A counted cell's instructions as a flame graph (SVG): one box per frame of its folded stacks (`CallGraph`), as
/// wide as the instructions per operation it ran with everything it called, its callers below it.
///
/// A differential graph draws the current run's widths and colours each frame by how its instructions per operation
/// changed from the base's: red where they grew (the deeper the red, the larger the growth), blue where they
/// shrank, grey where they stayed within 1 %. A frame the base had and the current run has not is not drawn; the
/// subtitle gives its instructions.
package struct FlameGraph {
    /// One frame: its name, its instructions per operation (inclusive), and its callees.
    private final class Frame {
        let name: String
        var current: Double = 0
        var base: Double = 0
        var children: [String: Frame] = [:]

        init(name: String) { self.name = name }

        func child(_ name: String) -> Frame {
            if let child = children[name] { return child }
            let child = Frame(name: name)
            children[name] = child
            return child
        }
    }

    private let root = Frame(name: "all")
    private let title: String
    private let differential: Bool

    /// The graph of `stacks` (instructions over `operations`), and the difference from `base` (over
    /// `baseOperations`) when given.
    package init(
        title: String, stacks: [String: UInt64], operations: Int,
        base: (stacks: [String: UInt64], operations: Int)? = nil
    ) {
        self.title = title
        differential = base != nil
        add(stacks, per: operations, to: \.current)
        if let base { add(base.stacks, per: base.operations, to: \.base) }
    }

    private func add(_ stacks: [String: UInt64], per operations: Int, to side: ReferenceWritableKeyPath<Frame, Double>)
    {
        let divisor = Double(max(operations, 1))
        // In the stacks' order, not the dictionary's (which differs from process to process): a frame's sum of
        // doubles, and so the graph, is then the same in every render.
        for (stack, count) in stacks.sorted(by: { $0.key < $1.key }) {
            let value = Double(count) / divisor
            var frame = root
            frame[keyPath: side] += value
            for name in stack.split(separator: ";") {
                frame = frame.child(String(name))
                frame[keyPath: side] += value
            }
        }
    }

    /// The frames whose instructions per operation grew more than 1 % since the base (a differential graph), by
    /// stack ("root;caller;frame"), with their instructions per operation now and in the base.
    package var grownFrames: [(stack: String, current: Double, base: Double)] {
        var grown: [(stack: String, current: Double, base: Double)] = []
        func visit(_ frame: Frame, path: String) {
            for child in frame.children.values.sorted(by: { $0.name < $1.name }) {
                let stack = path.isEmpty ? child.name : path + ";" + child.name
                if child.current > child.base * 1.01, child.current > 0 {
                    grown.append((stack, child.current, child.base))
                }
                visit(child, path: stack)
            }
        }
        if differential { visit(root, path: "") }
        return grown
    }

    /// The harness's function the counted region runs in, on the cell's thread: every other root of the stacks
    /// is a thread the store started (a worker, a pool), whose instructions the graph cannot tie to the operation that
    /// asked for them.
    package static let regionRoot = "CellExecution.measure"
    /// What a root of another thread says after its name.
    package static let anotherThread = " · another thread: the cell's work, not tied to an operation"

    private static let width = 1200.0
    private static let rowHeight = 16.0
    private static let top = 48.0

    /// The SVG document.
    package var svg: String {
        let depth = Self.depth(of: root)
        let height = Self.top + Double(depth + 1) * Self.rowHeight + 8
        var boxes = ""
        let scale = root.current > 0 ? Self.width / root.current : 0
        draw(root, x: 0, level: 0, scale: scale, levels: depth, into: &boxes)
        let gone = differential ? Self.vanished(root) : 0
        var subtitle =
            "instructions per operation: \(Self.format(root.current))"
            + (differential ? " (base \(Self.format(root.base)), ×\(Self.ratio(root.current, root.base)))" : "")
        if gone > 0 { subtitle += "; frames gone since the base: \(Self.format(gone)) per operation" }
        if differential { subtitle += " · red: grew, blue: shrank, grey: within 1 %" }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(height))" \
            font-family="Helvetica, Arial, sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="8" y="18" font-size="14">\(Self.escape(title))</text>
            <text x="8" y="36" fill="#555555">\(Self.escape(subtitle))</text>
            \(boxes)</svg>

            """
    }

    private func draw(_ frame: Frame, x: Double, level: Int, scale: Double, levels: Int, into boxes: inout String) {
        let width = frame.current * scale
        guard width >= 0.5 else { return }
        let y = Self.top + Double(levels - level) * Self.rowHeight
        let share = root.current > 0 ? frame.current / root.current * 100 : 0
        let name = level == 1 && !frame.name.hasPrefix(Self.regionRoot) ? frame.name + Self.anotherThread : frame.name
        var tip = "\(name): \(Self.format(frame.current)) instructions/op (\(String(format: "%.1f", share)) %)"
        if differential { tip += ", base \(Self.format(frame.base)) (×\(Self.ratio(frame.current, frame.base)))" }
        boxes += """
            <g><title>\(Self.escape(tip))</title><rect x="\(Self.coordinate(x))" y="\(Self.coordinate(y))" \
            width="\(Self.coordinate(max(width - 0.5, 0.5)))" height="\(Int(Self.rowHeight - 1))" \
            fill="\(color(of: frame))"/>
            """
        let characters = Int((width - 6) / 6.2)
        if characters >= 3 {
            let label = name.count <= characters ? name : name.prefix(characters - 2) + ".."
            boxes +=
                "<text x=\"\(Self.coordinate(x + 3))\" y=\"\(Self.coordinate(y + 11.5))\">\(Self.escape(String(label)))</text>"
        }
        boxes += "</g>\n"
        var next = x
        for child in frame.children.values.sorted(by: { $0.name < $1.name }) {
            draw(child, x: next, level: level + 1, scale: scale, levels: levels, into: &boxes)
            next += child.current * scale
        }
    }

    /// A warm colour from the name, aqua for a frame the compiler inlined (a plain graph); or the change from the
    /// base (a differential one).
    private func color(of frame: Frame) -> String {
        guard differential else {
            var hash: UInt32 = 2_166_136_261
            for byte in frame.name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
            if frame.name.hasSuffix(CallGraph.inlinedSuffix) {
                return "rgb(\(60 + Int(hash % 60)),\(190 + Int((hash >> 8) % 40)),\(190 + Int((hash >> 16) % 40)))"
            }
            let red = 205 + Int(hash % 50)
            let green = 80 + Int((hash >> 8) % 130)
            let blue = 40 + Int((hash >> 16) % 40)
            return "rgb(\(red),\(green),\(blue))"
        }
        let change = frame.base > 0 ? frame.current / frame.base - 1 : (frame.current > 0 ? 1 : 0)
        guard abs(change) > 0.01 else { return "rgb(220,220,220)" }
        // Full colour at a doubling (or a halving); a frame new since the base is full red.
        let strength = min(abs(change), 1)
        let fade = Int(220 - 190 * strength)
        return change > 0 ? "rgb(235,\(fade),\(fade))" : "rgb(\(fade),\(fade),235)"
    }

    private static func depth(of frame: Frame) -> Int {
        frame.children.values.map { depth(of: $0) + 1 }.max() ?? 0
    }

    /// The instructions per operation of frames the base had and the current run has not.
    ///
    /// The base's instructions in frames this run has not, under `frame`, but no more than `frame` shrank by: a frame
    /// that moved rather than went (a call drawn inside its caller below the 0.5 % cut in one run and not the other)
    /// left its instructions to its caller, and is not gone.
    private static func vanished(_ frame: Frame) -> Double {
        let missing = frame.children.values.reduce(0) { sum, child in
            sum + (child.current == 0 ? child.base : vanished(child))
        }
        return min(missing, max(0, frame.base - frame.current))
    }

    private static func format(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
    }

    private static func ratio(_ current: Double, _ base: Double) -> String {
        base > 0 ? String(format: "%.3f", current / base) : "new"
    }

    private static func coordinate(_ value: Double) -> String { String(format: "%.1f", value) }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
