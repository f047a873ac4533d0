import Foundation
import PersistenceBench

/// A log–log line chart as a standalone SVG file: one line per series, both axes labelled with their units,
/// decade grid lines, and a legend.
///
/// 800 × 480 px, readable at that width.
struct LogLogChart {
    struct Series {
        var name: String
        var points: [(x: Double, y: Double)]
        /// A bar at x from low to high (the repetitions' spread), for each point that has one.
        var ranges: [(x: Double, low: Double, high: Double)] = []
        /// A dashed line beyond the points, without markers: a fit's continuation past the scales measured.
        var projection: [(x: Double, y: Double)] = []
        /// The x of the points whose markers are drawn hollow (measured on another machine than the filled ones).
        var hollow: Set<Double> = []
    }

    var title: String
    var xLabel: String
    var yLabel: String
    var series: [Series]
    /// The unit after each y tick's number ("B" for bytes); the x axis counts records.
    var yUnit = ""
    /// A linear x axis from 0 (seconds of a timeline) instead of a logarithmic one.
    var linearX = false
    /// Ticks of the y axis as durations ("10 µs", "1 ms"); the values are seconds.
    var yTime = false

    /// Horizontal lines across the plot, dashed, each labelled at its right end (a budget's limit).
    var thresholds: [(y: Double, label: String)] = []
    /// The x axis covers at least this span, where there is anything to draw (room for a projection).
    var xSpan: (low: Double, high: Double)?
    /// What filled and hollow markers mean, under the legend ("● boot 2c26fc23", "○ boot 5b3382bd").
    var markerKey: [String] = []

    /// Where a plot's axes meet its edges, in the SVG's pixels.
    struct Frame {
        var left: Double
        var right: Double
        var top: Double
        var bottom: Double
    }

    static let width = 800.0
    static let height = 480.0
    private static let plot = Frame(left: 90, right: 610, top: 50, bottom: 410)
    static let thresholdColour = "#B00020"
    /// Distinguishable colours (Okabe–Ito), then grey.
    private static let colours = [
        "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000", "#999999",
    ]

    func render() -> String {
        var svg = Self.header(width: Self.width, height: Self.height, title: title)
        svg +=
            plot(in: Self.plot, legendX: Self.plot.right + 20) ?? [
                #"<text x="\#(Self.width / 2)" y="\#(Self.height / 2)" text-anchor="middle">no finished cells</text>"#
            ]
        svg.append("</svg>")
        return svg.joined(separator: "\n")
    }

    /// The opening of a standalone SVG file: its size, a white ground and the title.
    static func header(width: Double, height: Double, title: String) -> [String] {
        [
            #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(Int(width))" height="\#(Int(height))" "#
                + #"viewBox="0 0 \#(Int(width)) \#(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="13">"#,
            #"<rect width="100%" height="100%" fill="white"/>"#,
            #"<text x="\#(width / 2)" y="28" text-anchor="middle" font-size="16" font-weight="bold">\#(Self.escape(title))</text>"#,
        ]
    }

    /// The plot within `plot`: grid, axes and their labels, the series and the thresholds, and with `legendX` each
    /// series' legend entry beside the plot.
    ///
    /// Nil when nothing is there to draw.
    func plot(in plot: Frame, legendX: Double? = nil) -> [String]? {
        let linearX = linearX
        let points =
            (series.flatMap(\.points) + series.flatMap(\.projection)
            + series.flatMap(\.ranges).flatMap { [($0.x, $0.low), ($0.x, $0.high)] })
            .filter { (linearX || $0.x > 0) && $0.y > 0 }
        let xs = points.map(\.x) + (points.isEmpty ? [] : xSpan.map { [$0.low, $0.high] } ?? [])
        let ys = points.map(\.y) + (points.isEmpty ? [] : thresholds.map(\.y).filter { $0 > 0 })
        guard let xRange = linearX ? Self.linearRange(xs) : Self.decades(xs), let yRange = Self.decades(ys) else {
            return nil
        }
        var svg: [String] = []
        func x(_ value: Double) -> Double {
            let position = linearX ? value : log10(value)
            return plot.left + (position - xRange.lower) / (xRange.upper - xRange.lower) * (plot.right - plot.left)
        }
        func y(_ value: Double) -> Double {
            plot.bottom - (log10(value) - yRange.lower) / (yRange.upper - yRange.lower) * (plot.bottom - plot.top)
        }
        // Grid and ticks: one per decade, or eight steps of a linear axis.
        let xTicks =
            linearX
            ? stride(from: 0, through: xRange.upper, by: xRange.upper / 8).map { ($0, "\(Int($0))") }
            : stride(from: xRange.lower, through: xRange.upper, by: 1).map {
                (pow(10, $0), Self.decadeLabel($0, unit: ""))
            }
        for (value, label) in xTicks {
            let position = x(value)
            svg.append(Self.line(position, plot.top, position, plot.bottom, colour: "#dddddd"))
            svg.append(
                #"<text x="\#(position)" y="\#(plot.bottom + 20)" text-anchor="middle">\#(Self.escape(label))</text>"#)
        }
        for exponent in stride(from: yRange.lower, through: yRange.upper, by: 1) {
            let position = y(pow(10, exponent))
            svg.append(Self.line(plot.left, position, plot.right, position, colour: "#dddddd"))
            let label = yTime ? Quantity.formatTime(pow(10, exponent)) : Self.decadeLabel(exponent, unit: yUnit)
            svg.append(
                #"<text x="\#(plot.left - 8)" y="\#(position + 4)" text-anchor="end">\#(Self.escape(label))</text>"#)
        }
        svg.append(Self.line(plot.left, plot.bottom, plot.right, plot.bottom, colour: "#333333"))
        svg.append(Self.line(plot.left, plot.top, plot.left, plot.bottom, colour: "#333333"))
        svg.append(
            #"<text x="\#((plot.left + plot.right) / 2)" y="\#(plot.bottom + 45)" text-anchor="middle">\#(Self.escape(xLabel))</text>"#
        )
        svg.append(
            #"<text transform="translate(\#(Int(plot.left - 68)) \#((plot.top + plot.bottom) / 2)) rotate(-90)" text-anchor="middle">\#(Self.escape(yLabel))</text>"#
        )
        for threshold in thresholds where threshold.y > 0 {
            let position = y(threshold.y)
            svg.append(
                #"<line x1="\#(Self.format(plot.left))" y1="\#(Self.format(position))" x2="\#(Self.format(plot.right))" y2="\#(Self.format(position))" stroke="\#(Self.thresholdColour)" stroke-width="1.5" stroke-dasharray="8 4"/>"#
            )
            svg.append(
                #"<text x="\#(Self.format(plot.right - 4))" y="\#(Self.format(position - 5))" text-anchor="end" fill="\#(Self.thresholdColour)">\#(Self.escape(threshold.label))</text>"#
            )
        }
        // One line per series, and its legend entry.
        for (index, entry) in series.enumerated() {
            let colour = Self.colour(index)
            let visible = entry.points.filter { (linearX || $0.x > 0) && $0.y > 0 }.sorted { $0.x < $1.x }
            if visible.count > 1 {
                let path = visible.map { "\(Self.format(x($0.x))),\(Self.format(y($0.y)))" }.joined(separator: " ")
                svg.append(#"<polyline points="\#(path)" fill="none" stroke="\#(colour)" stroke-width="2.5"/>"#)
            }
            let projection = entry.projection.filter { $0.x > 0 && $0.y > 0 }.sorted { $0.x < $1.x }
            if projection.count > 1 {
                let path = projection.map { "\(Self.format(x($0.x))),\(Self.format(y($0.y)))" }.joined(separator: " ")
                svg.append(
                    #"<polyline points="\#(path)" fill="none" stroke="\#(colour)" stroke-width="2" stroke-dasharray="6 4"/>"#
                )
            }
            for range in entry.ranges where range.x > 0 && range.low > 0 && range.high > range.low {
                let (position, low, high) = (x(range.x), y(range.low), y(range.high))
                svg.append(Self.line(position, low, position, high, colour: colour, width: 1.5))
                svg.append(Self.line(position - 4, low, position + 4, low, colour: colour, width: 1.5))
                svg.append(Self.line(position - 4, high, position + 4, high, colour: colour, width: 1.5))
            }
            for point in visible where !linearX {
                let fill =
                    entry.hollow.contains(point.x)
                    ? #"fill="white" stroke="\#(colour)" stroke-width="2""# : #"fill="\#(colour)""#
                svg.append(
                    #"<circle cx="\#(Self.format(x(point.x)))" cy="\#(Self.format(y(point.y)))" r="4" \#(fill)/>"#
                )
            }
            if let legendX {
                svg += Self.legendEntry(entry.name, index: index, x: legendX, y: plot.top + 10 + Double(index) * 22)
            }
        }
        if let legendX {
            for (line, text) in markerKey.enumerated() {
                let top = plot.top + 22 + Double(series.count + line) * 22
                svg.append(#"<text x="\#(Self.format(legendX))" y="\#(Self.format(top))">\#(Self.escape(text))</text>"#)
            }
        }
        return svg
    }

    /// A legend's entry: a short line in the series' colour, and its name.
    static func legendEntry(_ name: String, index: Int, x: Double, y: Double) -> [String] {
        [
            Self.line(x, y, x + 28, y, colour: colour(index), width: 3),
            #"<text x="\#(x + 36)" y="\#(y + 4)">\#(Self.escape(name))</text>"#,
        ]
    }

    /// The colour of the series at `index`, the same in every chart.
    static func colour(_ index: Int) -> String { colours[index % colours.count] }

    /// 10^exponent with an SI prefix: "100", "1k", "10M", "0.1"; with a unit, "1 kB".
    static func decadeLabel(_ exponent: Double, unit: String) -> String {
        let power = Int(exponent)
        let prefixes = [(9, "G"), (6, "M"), (3, "k")]
        let separator = unit.isEmpty ? "" : " "
        for (scale, prefix) in prefixes where power >= scale {
            let mantissa = Int(pow(10, Double(power - scale)))
            return "\(mantissa)\(separator)\(prefix)\(unit)"
        }
        let number = power >= 0 ? "\(Int(pow(10, Double(power))))" : String(format: "%g", pow(10, Double(power)))
        return number + (unit.isEmpty ? "" : " \(unit)")
    }

    /// 0 to the largest value, rounded up to a multiple of 8 so that eight ticks fall on whole numbers.
    private static func linearRange(_ values: [Double]) -> (lower: Double, upper: Double)? {
        guard let high = values.max() else { return nil }
        return (0, max(8, (high / 8).rounded(.up) * 8))
    }

    /// The whole decades (as exponents of 10) that cover `values`, at least one decade wide.
    private static func decades(_ values: [Double]) -> (lower: Double, upper: Double)? {
        guard let low = values.min(), let high = values.max() else { return nil }
        let lower = floor(log10(low))
        let upper = max(ceil(log10(high)), lower + 1)
        return (lower, upper)
    }

    private static func line(
        _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, colour: String, width: Double = 1
    ) -> String {
        #"<line x1="\#(Self.format(x1))" y1="\#(Self.format(y1))" x2="\#(Self.format(x2))" y2="\#(Self.format(y2))" stroke="\#(colour)" stroke-width="\#(width)"/>"#
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
