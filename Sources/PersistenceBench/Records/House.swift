/// A house with its floors in their stored order: the root of an ordered, cascading tree.
public struct House: Equatable, Hashable, Sendable, Codable {
    /// 1...H for H houses.
    public var id: Int64
    public var address: String
    /// In the order they were stored, which is not id order: a store that sorts by id loses it.
    public var floors: [Floor]

    public init(id: Int64, address: String, floors: [Floor]) {
        self.id = id
        self.address = address
        self.floors = floors
    }
}

public struct Floor: Equatable, Hashable, Sendable, Codable {
    public var id: Int64
    public var name: String
    /// In their stored order, which is not id order.
    public var rooms: [Room]

    public init(id: Int64, name: String, rooms: [Room]) {
        self.id = id
        self.name = name
        self.rooms = rooms
    }
}

public struct Room: Equatable, Hashable, Sendable, Codable {
    public var id: Int64
    public var name: String
    /// Floor area in square decimetres: an integer, so that every store round-trips it exactly.
    public var area: Int64

    public init(id: Int64, name: String, area: Int64) {
        self.id = id
        self.name = name
        self.area = area
    }
}

/// How many rows of each kind a store holds, whatever owns them: after a cascading delete, orphans show here.
public struct HouseCounts: Equatable, Sendable {
    public var houses: Int
    public var floors: Int
    public var rooms: Int

    public init(houses: Int, floors: Int, rooms: Int) {
        self.houses = houses
        self.floors = floors
        self.rooms = rooms
    }
}

/// Generates the houses of a seed and scale: scale/10 houses (at least one) of 1–4 floors of 1–7 rooms, so about
/// `scale` rooms.
///
/// House `id` is the same whatever order houses are generated in.
///
/// Floor ids are `house id × 4 + k` and room ids `floor id × 8 + k`; each house's floors and each floor's rooms
/// are stored in a seeded shuffle of that order, so the stored order is information a store must keep.
public struct HouseGenerator: Sendable {
    public let seed: UInt64
    public let houseCount: Int

    public init(seed: UInt64, scale: Int) {
        self.seed = seed
        houseCount = max(1, scale / 10)
    }

    public func house(id: Int64) -> House {
        precondition(id >= 1, "house ids start at 1")
        var rng = SplitMix64(seed: seed, stream: .houses, index: UInt64(id))
        let address = "\(1 + rng.below(999)) \(Names.pick(using: &rng)) \(Names.pick(using: &rng)) Road"
        let floors = Self.shuffled(0..<Int64(1 + rng.below(4)), using: &rng).map { level in
            let floorID = id * 4 + level
            let rooms = Self.shuffled(0..<Int64(1 + rng.below(7)), using: &rng).map { number in
                Room(
                    id: floorID * 8 + number, name: "\(Names.pick(using: &rng)) \(number + 1)",
                    area: Int64(40 + rng.below(3960)))
            }
            return Floor(id: floorID, name: "\(Names.pick(using: &rng)) level \(level)", rooms: rooms)
        }
        return House(id: id, address: address, floors: floors)
    }

    /// Houses `range.lowerBound...range.upperBound`, in id order.
    public func houses(_ range: ClosedRange<Int64>) -> [House] { range.map(house(id:)) }

    /// A Fisher–Yates shuffle written out, so that the data set does not depend on the standard library's.
    private static func shuffled(_ values: Range<Int64>, using rng: inout SplitMix64) -> [Int64] {
        var array = Array(values)
        for index in stride(from: array.count - 1, to: 0, by: -1) {
            array.swapAt(index, Int(rng.below(UInt64(index + 1))))
        }
        return array
    }
}

extension Digest {
    /// Adds one answer: a house, its floors and their rooms, in order.
    public mutating func add(_ house: House) {
        add(Int(house.id))
        add(house.address)
        add(house.floors.count)
        for floor in house.floors {
            add(Int(floor.id))
            add(floor.name)
            add(floor.rooms.count)
            for room in floor.rooms {
                add(Int(room.id))
                add(room.name)
                add(Int(room.area))
            }
        }
    }

    /// Adds one answer: a sport's team count.
    public mutating func add(_ count: TeamCount) {
        add(Int(count.sportID))
        add(count.sportName)
        add(count.teams)
    }
}
