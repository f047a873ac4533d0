// MARK: - The plan

/// The seeded transactions the crash checks write, and the state a store must hold after any number of them.
///
/// The store starts as the `get` fixture (items 1…scale). Transaction `t` is an insert of new items (ids after
/// every id used so far), an update of live items, or a delete of live items, 1–16 items each, so that a
/// transaction applied in part shows. With a record shape (`crash --shape`), the store starts as the shape's
/// fixture and the transactions insert and update its records (a record table has no delete: an update instead),
/// so that a file variant's attachments are checked as its rows are. The plan keeps what every transaction wrote, so that a check can find
/// which committed state, if any, a reopened store holds.
///
/// A plan can go on after a crash (`continuing(_:retrying:)`): the same history up to the state the store recovered to,
/// then other transactions with other values, as an app that reopens after a crash and goes on writing.
package struct CrashPlan: Sendable {
    package enum Transaction: Sendable {
        case insert([Item])
        case update([ItemUpdate])
        case delete([Int64])
        case insertRecords([Record])
        case updateRecords([RecordUpdate])
    }

    /// What an id holds in a committed state: an item, or a record of the plan's shape.
    package enum Value: Sendable {
        case item(Item)
        case record(Record)

        /// Equal as answers (prices in whole cents, dates in whole milliseconds), as digests compare them.
        func same(as other: Value) -> Bool {
            var first = Digest()
            var second = Digest()
            switch (self, other) {
            case (.item(let a), .item(let b)):
                first.add(a)
                second.add(b)
            case (.record(let a), .record(let b)):
                first.add(a)
                second.add(b)
            default: return false
            }
            return first == second
        }
    }

    /// Items per drawn transaction; a retried insert has twice as many.
    package static let maximumItemsPerTransaction = 16

    package let scale: Int
    /// The records' shape, or nil for items.
    package let shape: RecordShape?
    private let generator: ItemGenerator
    /// The values inserts and updates write: `generator`'s, or another seed's after `continuing(_:retrying:)`.
    private var values: ItemGenerator
    private var rng: SplitMix64
    private var nextID: Int64
    /// Items alive after the transactions made so far.
    private var live: Int
    /// The transaction a crash cut off, which a retrying successor makes again first.
    private var cutOff: Transaction?
    /// The current value of every id a transaction touched; nil once deleted.
    private var current: [Int64: Value?] = [:]
    /// Per transaction (index 0 is transaction 1), the values it left: nil for a deleted id.
    package private(set) var history: [[(id: Int64, value: Value?)]] = []

    /// - Parameter run: which sequence of transactions (one per kill), so that kills do not all replay one.
    package init(scale: Int, seed: UInt64, run: Int, shape: RecordShape? = nil) {
        self.scale = scale
        self.shape = shape
        generator = ItemGenerator(seed: seed)
        values = generator
        rng = SplitMix64(seed: seed, stream: .crashTransactions, index: UInt64(run))
        nextID = Int64(scale) + 1
        live = scale
    }

    /// The plan with its first `count` transactions made.
    package init(scale: Int, seed: UInt64, run: Int, transactions count: Int, shape: RecordShape? = nil) {
        self.init(scale: scale, seed: seed, run: run, shape: shape)
        for _ in 0..<count { _ = next() }
    }

    /// A crashed writer's successor, which opened the store in the state after the transactions made so far: the
    /// plan's later transactions are drawn from `continuation`'s own stream and write other values.
    ///
    /// With `retrying`, its first transaction makes again the one the crash cut off (an insert with as many items again
    /// after it, as an app retries what failed and adds what came since; an update or a delete as it was): the same
    /// bytes where the cut-off commit left its own, which a store that trusted those would show in part. Without,
    /// nothing repeats those bytes, and what the store trusts must be what the successor wrote.
    package mutating func continuing(_ continuation: Int, retrying: Bool) {
        if retrying {
            var original = self
            cutOff = original.drawn()
        }
        var mixer = SplitMix64(seed: generator.seed, stream: .crashContinuations, index: UInt64(continuation))
        let seed = mixer.next()
        values = ItemGenerator(seed: seed)
        rng = SplitMix64(seed: seed, stream: .crashTransactions, index: 0)
    }

    /// What `id` holds before any transaction: the fixture's, or nil for an id the plan inserts.
    func base(_ id: Int64) -> Value? {
        guard id <= Int64(scale) else { return nil }
        guard let shape else { return .item(generator.item(id: id)) }
        return .record(RecordGenerator(shape: shape, seed: generator.seed).record(id: id))
    }

    /// The records `values` makes: the shape's, from the values' seed.
    private var records: RecordGenerator? { shape.map { RecordGenerator(shape: $0, seed: values.seed) } }

    private func value(_ id: Int64) -> Value? {
        if let changed = current[id] { return changed }
        return base(id)
    }

    /// Makes the next transaction and records what it leaves.
    package mutating func next() -> Transaction {
        let transaction = cutOff.map(retried) ?? drawn()
        cutOff = nil
        let effects: [(id: Int64, value: Value?)]
        switch transaction {
        case .insert(let items):
            effects = items.map { ($0.id, .item($0)) }
            nextID += Int64(items.count)
            live += items.count
        case .insertRecords(let records):
            effects = records.map { ($0.id, .record($0)) }
            nextID += Int64(records.count)
            live += records.count
        case .update(let updates):
            effects = updates.map { update in
                // A plan updates only items it keeps live (`nextTransaction`).
                guard case .item(var item) = value(update.id) else {
                    preconditionFailure("the plan updates a deleted item")
                }
                update.apply(to: &item)
                return (update.id, .item(item))
            }
        case .updateRecords(let updates):
            effects = updates.map { update in
                guard case .record(var record) = value(update.id) else {
                    preconditionFailure("the plan updates a record it does not hold")
                }
                update.apply(to: &record)
                return (update.id, .record(record))
            }
        case .delete(let ids):
            effects = ids.map { ($0, nil) }
            live -= ids.count
        }
        for effect in effects { current[effect.id] = .some(effect.value) }
        history.append(effects)
        return transaction
    }

    /// The next transaction from the plan's stream: 1–16 items, inserted (after every id used so far), updated or
    /// deleted (live ones).
    private mutating func drawn() -> Transaction {
        let number = history.count + 1
        let size = 1 + Int(rng.below(UInt64(Self.maximumItemsPerTransaction)))
        let kind = rng.below(3)
        // Too few live items to pick from (a store that started empty): an insert.
        if kind == 0 || live < size * 4 {
            if let records { return .insertRecords(records.records(nextID...(nextID + Int64(size) - 1))) }
            return .insert((0..<Int64(size)).map { values.item(id: nextID + $0) })
        }
        var ids: [Int64] = []
        while ids.count < size {
            let id = 1 + Int64(rng.below(UInt64(nextID - 1)))
            if value(id) != nil && !ids.contains(id) { ids.append(id) }
        }
        ids.sort()
        if let records {
            return .updateRecords(
                ids.enumerated().map { index, id in
                    records.update(id: id, revision: number * Self.maximumItemsPerTransaction + index)
                })
        }
        guard kind == 1 else { return .delete(ids) }
        return .update(
            ids.enumerated().map { index, id in
                values.update(id: id, revision: number * Self.maximumItemsPerTransaction + index)
            })
    }

    /// `transaction`, cut off by a crash, as its successor makes it again: an insert with as many new items again.
    private func retried(_ transaction: Transaction) -> Transaction {
        switch transaction {
        case .insert(let items):
            let count = Int64(items.count)
            return .insert(items + (0..<count).map { values.item(id: nextID + count + $0) })
        case .insertRecords(let inserted):
            guard let records else { return transaction }
            let count = Int64(inserted.count)
            return .insertRecords(inserted + records.records((nextID + count)...(nextID + 2 * count - 1)))
        default: return transaction
        }
    }

    // MARK: - Applying a transaction

    /// Applies a transaction as one commit of `store`: of its items, or of its table of the plan's shape.
    package func apply(_ transaction: Transaction, to store: any Store) throws {
        if let shape {
            let table = try requireCapability(store, (any RecordStore).self, for: "a crash check of records")
                .records(of: shape)
            switch transaction {
            case .insertRecords(let records):
                try table.insert(records)
                try store.finishInserting()
            case .updateRecords(let updates): try table.update(updates)
            default: throw BenchError("a crash check of records made an item transaction")
            }
            return
        }
        try Self.apply(transaction, to: requireCapability(store, (any ItemStore).self, for: "a crash check"))
    }

    /// Applies an item transaction as one commit of `store`.
    package static func apply(_ transaction: Transaction, to store: any ItemStore) throws {
        switch transaction {
        case .insert(let items): try store.insertCommitted(items)
        case .update(let updates): try store.update(updates)
        case .delete(let ids): try store.delete(ids: ids)
        case .insertRecords, .updateRecords: throw BenchError("a record transaction applied to items")
        }
    }
}

// MARK: - The verdict

/// What a reopened store holds, against the plan.
package struct CrashVerdict: Codable, Sendable, Equatable {
    package enum Outcome: String, Codable, Sendable {
        /// The state after the last committed transaction, or after the one in flight (its commit may have been
        /// durable before it returned).
        case intact
        /// The state after an earlier transaction: committed transactions are missing, none in part.
        case lost
        /// No committed state: a transaction is partly visible, or an item is wrong.
        case torn
        /// The store did not open, or its own integrity check failed.
        case corrupt
    }

    package var outcome: Outcome
    /// Transactions whose commit had returned.
    package var committed: Int
    /// The committed state found (transactions applied), when there is one.
    package var found: Int?
    /// What was wrong, for `torn` and `corrupt`.
    package var problem: String?

    /// Committed transactions missing from the store.
    package var lostTransactions: Int { found.map { max(0, committed - $0) } ?? 0 }

    package init(outcome: Outcome, committed: Int, found: Int? = nil, problem: String? = nil) {
        self.outcome = outcome
        self.committed = committed
        self.found = found
        self.problem = problem
    }
}

extension CrashPlan {
    /// Compares every item (or record) of `store` with the states after 0…`committed + 1` transactions (the plan
    /// holds at least that many) and says which it holds.
    package func verdict(for store: any Store, committed: Int) throws -> CrashVerdict {
        let candidates = min(history.count, committed + 1)
        var touched: Set<Int64> = []
        for effects in history[..<candidates] { for effect in effects { touched.insert(effect.id) } }
        var found: [Int64: Value] = [:]
        var untouchedSeen = 0
        var problem: String?
        func see(_ id: Int64, _ value: Value) {
            if touched.contains(id) {
                found[id] = value
            } else if let expected = base(id), value.same(as: expected) {
                untouchedSeen += 1
            } else if problem == nil {
                problem = "\(shape == nil ? "item" : "record") \(id) is in no committed state"
            }
        }
        if let shape {
            try requireCapability(store, (any RecordStore).self, for: "a crash check of records").records(of: shape)
                .forEachRecord { see($0.id, .record($0)) }
        } else {
            try requireCapability(store, (any ItemStore).self, for: "a crash check").forEachItem {
                see($0.id, .item($0))
            }
        }
        if let problem { return CrashVerdict(outcome: .torn, committed: committed, problem: problem) }
        let untouchedExpected = scale - touched.filter { $0 <= Int64(scale) }.count
        if untouchedSeen != untouchedExpected {
            return CrashVerdict(
                outcome: .torn, committed: committed,
                problem: "\(untouchedExpected - untouchedSeen) items no transaction touched are missing")
        }
        let (matching, nearest) = states(matching: found, touched: touched, candidates: candidates)
        if let state = matching.last {
            return CrashVerdict(outcome: state >= committed ? .intact : .lost, committed: committed, found: state)
        }
        return CrashVerdict(
            outcome: .torn, committed: committed,
            problem: "\(nearest.differing) items differ from the nearest committed state (after transaction "
                + "\(nearest.state))")
    }

    /// The states of 0…`candidates` transactions whose touched ids hold what `found` holds, and the nearest (the
    /// latest with the fewest ids differing) with how many differ: the states walked in order, keeping how many
    /// touched ids differ from the store.
    private func states(
        matching found: [Int64: Value], touched: Set<Int64>, candidates: Int
    ) -> (matching: [Int], nearest: (state: Int, differing: Int)) {
        var expected: [Int64: Value?] = [:]
        var differing = 0
        func differs(_ id: Int64) -> Bool {
            switch (expected[id] ?? base(id), found[id]) {
            case (nil, nil): false
            case (let want?, let have?): !want.same(as: have)
            default: true
            }
        }
        for id in touched where differs(id) { differing += 1 }
        var matching: [Int] = differing == 0 ? [0] : []
        var nearest = (state: 0, differing: differing)
        for state in stride(from: 1, through: candidates, by: 1) {
            for effect in history[state - 1] {
                let before = differs(effect.id)
                expected[effect.id] = .some(effect.value)
                let after = differs(effect.id)
                differing += (after ? 1 : 0) - (before ? 1 : 0)
            }
            if differing == 0 { matching.append(state) }
            if differing <= nearest.differing { nearest = (state, differing) }
        }
        return (matching, nearest)
    }
}
