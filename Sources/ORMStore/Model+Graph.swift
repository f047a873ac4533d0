import PersistenceBench

extension Model {
    // The association and house models, as a SwiftData user declares them: `@Model` classes with an
    // `@Attribute(.unique) var id`, `@Relationship(inverse:)` to-manys (Sport.teams, nullify) and ordered to-manys
    // with cascade (House.floors, Floor.rooms), which Core Data keeps in `Z_FOK_` columns.

    final class Sport: ManagedObject, PersistentModel {
        static let id = Attribute<Sport, Int64>(0, "id", \.id)
        static let name = Attribute<Sport, String>(1, "name", \.name)
        static let teams = ToMany<Sport, Team>(0, "teams", inverse: "sport")
        static let entityDescription = EntityDescription(
            name: "Sport", attributes: [id.description, name.description], relationships: [teams.description],
            uniqueAttributes: ["id"])

        var id: Int64 {
            get { value(of: Self.id) }
            set { setValue(newValue, for: Self.id) }
        }
        var name: String {
            get { value(of: Self.name) }
            set { setValue(newValue, for: Self.name) }
        }
        var teams: [Team] { objects(for: Self.teams) }
    }

    final class Team: ManagedObject, PersistentModel {
        static let id = Attribute<Team, Int64>(0, "id", \.id)
        static let name = Attribute<Team, String>(1, "name", \.name)
        static let sport = ToOne<Team, Sport>(0, "sport", inverse: "teams")
        static let entityDescription = EntityDescription(
            name: "Team", attributes: [id.description, name.description], relationships: [sport.description],
            uniqueAttributes: ["id"])

        var id: Int64 {
            get { value(of: Self.id) }
            set { setValue(newValue, for: Self.id) }
        }
        var name: String {
            get { value(of: Self.name) }
            set { setValue(newValue, for: Self.name) }
        }
        var sport: Sport? {
            get { object(for: Self.sport) }
            set { setObject(newValue, for: Self.sport) }
        }
    }

    final class House: ManagedObject, PersistentModel {
        static let id = Attribute<House, Int64>(0, "id", \.id)
        static let address = Attribute<House, String>(1, "address", \.address)
        static let floors = ToMany<House, Floor>(0, "floors", inverse: "house", ordered: true, deleteRule: .cascade)
        static let entityDescription = EntityDescription(
            name: "House", attributes: [id.description, address.description], relationships: [floors.description],
            uniqueAttributes: ["id"])

        var id: Int64 {
            get { value(of: Self.id) }
            set { setValue(newValue, for: Self.id) }
        }
        var address: String {
            get { value(of: Self.address) }
            set { setValue(newValue, for: Self.address) }
        }
        var floors: [Floor] { objects(for: Self.floors) }
    }

    final class Floor: ManagedObject, PersistentModel {
        static let id = Attribute<Floor, Int64>(0, "id", \.id)
        static let name = Attribute<Floor, String>(1, "name", \.name)
        static let house = ToOne<Floor, House>(0, "house", inverse: "floors")
        static let rooms = ToMany<Floor, Room>(1, "rooms", inverse: "floor", ordered: true, deleteRule: .cascade)
        static let entityDescription = EntityDescription(
            name: "Floor", attributes: [id.description, name.description],
            relationships: [house.description, rooms.description], uniqueAttributes: ["id"])

        var id: Int64 {
            get { value(of: Self.id) }
            set { setValue(newValue, for: Self.id) }
        }
        var name: String {
            get { value(of: Self.name) }
            set { setValue(newValue, for: Self.name) }
        }
        var house: House? {
            get { object(for: Self.house) }
            set { setObject(newValue, for: Self.house) }
        }
        var rooms: [Room] { objects(for: Self.rooms) }
    }

    final class Room: ManagedObject, PersistentModel {
        static let id = Attribute<Room, Int64>(0, "id", \.id)
        static let name = Attribute<Room, String>(1, "name", \.name)
        static let area = Attribute<Room, Int64>(2, "area", \.area)
        static let floor = ToOne<Room, Floor>(0, "floor", inverse: "rooms")
        static let entityDescription = EntityDescription(
            name: "Room", attributes: [id.description, name.description, area.description],
            relationships: [floor.description], uniqueAttributes: ["id"])

        var id: Int64 {
            get { value(of: Self.id) }
            set { setValue(newValue, for: Self.id) }
        }
        var name: String {
            get { value(of: Self.name) }
            set { setValue(newValue, for: Self.name) }
        }
        var area: Int64 {
            get { value(of: Self.area) }
            set { setValue(newValue, for: Self.area) }
        }
    }

    /// A profile sample.
    ///
    /// Its call stack is a relationship to a shared `CallStack`, as a SwiftData model would normalise a value that
    /// thousands of samples repeat.
    final class Sample: ManagedObject, PersistentModel {
        static let timestamp = Attribute<Sample, Int64>(0, "timestamp", \.timestamp)
        static let pid = Attribute<Sample, Int64>(1, "pid", \.pid)
        static let tid = Attribute<Sample, Int64>(2, "tid", \.tid)
        static let stack = ToOne<Sample, CallStack>(0, "stack", inverse: "samples")
        static let entityDescription = EntityDescription(
            name: "Sample", attributes: [timestamp.description, pid.description, tid.description],
            relationships: [stack.description], uniqueAttributes: ["timestamp"])

        var timestamp: Int64 {
            get { value(of: Self.timestamp) }
            set { setValue(newValue, for: Self.timestamp) }
        }
        var pid: Int64 {
            get { value(of: Self.pid) }
            set { setValue(newValue, for: Self.pid) }
        }
        var tid: Int64 {
            get { value(of: Self.tid) }
            set { setValue(newValue, for: Self.tid) }
        }
        var stack: CallStack? {
            get { object(for: Self.stack) }
            set { setObject(newValue, for: Self.stack) }
        }
    }

    /// A distinct call stack: its frames (a binary attribute) and its leaf frame (an attribute of its own, so that a
    /// fetch can read it without decoding the frames).
    final class CallStack: ManagedObject, PersistentModel {
        static let id = Attribute<CallStack, Int64>(0, "id", \.id)
        static let leaf = Attribute<CallStack, Int64>(1, "leaf", \.leaf)
        static let frames = Attribute<CallStack, [UInt64]>(2, "frames", \.frames)
        static let samples = ToMany<CallStack, Sample>(0, "samples", inverse: "stack")
        static let entityDescription = EntityDescription(
            name: "CallStack", attributes: [id.description, leaf.description, frames.description],
            relationships: [samples.description], uniqueAttributes: ["id"])

        var id: Int64 {
            get { value(of: Self.id) }
            set { setValue(newValue, for: Self.id) }
        }
        var leaf: Int64 {
            get { value(of: Self.leaf) }
            set { setValue(newValue, for: Self.leaf) }
        }
        var frames: [UInt64] {
            get { value(of: Self.frames) }
            set { setValue(newValue, for: Self.frames) }
        }
    }
}
