import PersistenceBench

/// Houses on the heap stores: each house a value holding its floors and rooms in order, in a slot by id; a
/// cascading delete empties the slot.
extension MemoryItemStore: HouseStore {
    /// One batch of a bulk load, in the heap only (as `insert(_:)`).
    package func insert(houses batch: [House]) throws {
        for house in batch {
            guard house.id > 0, house.id < Int64(UInt32.max) else { throw BenchError("\(name): house id \(house.id)") }
            let id = Int(house.id)
            if id >= houses.count { houses.append(contentsOf: repeatElement(nil, count: id - houses.count + 1)) }
            guard houses[id] == nil else { throw BenchError("\(name): house \(id) is already stored") }
            houses[id] = house
        }
        unsaved = true
    }

    package func forEachHouse(_ body: (House) throws -> Void) throws {
        for case let house? in houses { try body(house) }
    }

    package func deleteHouses(ids: [Int64]) throws {
        for id in ids {
            guard id > 0, id < Int64(houses.count), houses[Int(id)] != nil else {
                throw BenchError("\(name): no house \(id) to delete")
            }
            houses[Int(id)] = nil
        }
        unsaved = true
        try commit()
    }

    /// Counted by a pass over the houses: floors and rooms live inside them, so none can be orphaned.
    package func houseCounts() throws -> HouseCounts {
        var counts = HouseCounts(houses: 0, floors: 0, rooms: 0)
        for case let house? in houses {
            counts.houses += 1
            counts.floors += house.floors.count
            for floor in house.floors { counts.rooms += floor.rooms.count }
        }
        return counts
    }
}
