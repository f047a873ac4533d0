import PersistenceBench
import Testing

@Suite struct QuantityTests {
    @Test(arguments: [
        ("10k", 10_000), ("100K", 100_000), ("1M", 1_000_000), ("10m", 10_000_000), ("1e6", 1_000_000),
        ("1000000", 1_000_000), ("2.5M", 2_500_000), ("1G", 1_000_000_000), ("1", 1), (" 5k ", 5000),
    ])
    func scalesParse(text: String, records: Int) {
        #expect(Scale(parsing: text)?.records == records)
    }

    @Test(arguments: ["", "0", "-5", "abc", "1.5", "10q", "k", "1e13", "1,000", "nan", "inf", "1.5k5"])
    func malformedScalesAreRejected(text: String) {
        #expect(Scale(parsing: text) == nil)
    }

    @Test func scalesPrintShort() {
        #expect(Scale(records: 10_000).description == "10k")
        #expect(Scale(records: 1_000_000).description == "1M")
        #expect(Scale(records: 2_500_000).description == "2.5M")
        #expect(Scale(records: 1234).description == "1234")
    }

    @Test func durationsAndSizesParse() {
        #expect(Quantity.seconds(parsing: "90s") == 90)
        #expect(Quantity.seconds(parsing: "10m") == 600)
        #expect(Quantity.seconds(parsing: "1h") == 3600)
        #expect(Quantity.seconds(parsing: "500ms") == 0.5)
        #expect(Quantity.seconds(parsing: "45") == 45)
        #expect(Quantity.seconds(parsing: "-1s") == nil)
        #expect(Quantity.seconds(parsing: "soon") == nil)
        #expect(Quantity.bytes(parsing: "8GiB") == 8 << 30)
        #expect(Quantity.bytes(parsing: "512MiB") == 512 << 20)
        #expect(Quantity.bytes(parsing: "2G") == 2 << 30)
        #expect(Quantity.bytes(parsing: "1048576") == 1 << 20)
        #expect(Quantity.bytes(parsing: "lots") == nil)
        #expect(Quantity.bytes(parsing: "0GiB") == nil)
    }

    /// A budget prints in the unit it was most likely given in, and a fraction of a second stays exact.
    @Test func budgetsPrintAsGiven() {
        #expect(Quantity.formatBudget(3600) == "1 h")
        #expect(Quantity.formatBudget(7200) == "2 h")
        #expect(Quantity.formatBudget(1800) == "30 min")
        #expect(Quantity.formatBudget(5400) == "90 min")
        #expect(Quantity.formatBudget(90) == "90 s")
        #expect(Quantity.formatBudget(0.3) == "0.3 s")
        #expect(Quantity.formatBudget(0.5) == "0.5 s")
    }
}
