/// Which build runs a cell: a run has one, this one (`current`); `check --base` times a base revision's build
/// beside it (`RunPlan.interleaved`).
package enum Side: String, Sendable, CaseIterable {
    case base, current
}

/// One value for each side.
package struct Sides<Value> {
    package var base: Value
    package var current: Value

    package init(base: Value, current: Value) {
        self.base = base
        self.current = current
    }

    package init(_ value: (Side) throws -> Value) rethrows {
        self.init(base: try value(.base), current: try value(.current))
    }

    package subscript(side: Side) -> Value {
        get { side == .base ? base : current }
        set { if side == .base { base = newValue } else { current = newValue } }
    }
}
