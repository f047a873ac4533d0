import Foundation
import GRDB
import PersistenceBench

// The association records, written as GRDB's associations guide writes them: Codable records with `hasMany` /
// `belongsTo` associations, the table created by a `belongsTo` column (a foreign key with ON DELETE CASCADE,
// indexed). Every `grdb` variant answers these workloads with this code: the variants differ in how items are
// written, and these records have no second idiom to compare.

struct SportRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sport"
    static let teams = hasMany(TeamRecord.self)
    var id: Int64
    var name: String
}

struct TeamRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "team"
    var id: Int64
    var sportId: Int64
    var name: String
}

/// A sport and its number of teams: `SportRecord.annotated(with: SportRecord.teams.count)`.
struct SportTeamCount: Decodable, FetchableRecord {
    var id: Int64
    var name: String
    var teamCount: Int
}

extension GRDBItemStore: AssociationStore {
    /// The league's migration, after the item table's.
    static func registerLeagueMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("create league") { db in
            try db.create(table: "sport") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
            }
            try db.create(table: "team") { t in
                t.primaryKey("id", .integer)
                t.belongsTo("sport", onDelete: .cascade).notNull()
                t.column("name", .text).notNull()
            }
        }
    }

    package func insert(sports: [Sport]) throws {
        try database.write { db in
            for sport in sports { try SportRecord(id: sport.id, name: sport.name).insert(db) }
        }
    }

    package func insert(teams: [Team]) throws {
        try database.write { db in
            for team in teams { try TeamRecord(id: team.id, sportId: team.sportID, name: team.name).insert(db) }
        }
    }

    package func teamCountsBySport() throws -> [TeamCount] {
        try database.read { db in
            switch flavor {
            case .records, .codable:
                try SportRecord.annotated(with: SportRecord.teams.count).order(Column("id"))
                    .asRequest(of: SportTeamCount.self).fetchAll(db)
                    .map { TeamCount(sportID: $0.id, sportName: $0.name, teams: $0.teamCount) }
            case .statements:
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT sport.id, sport.name, COUNT(team.id) FROM sport "
                            + "LEFT JOIN team ON team.sportId = sport.id GROUP BY sport.id ORDER BY sport.id")
                ).map { TeamCount(sportID: $0[0], sportName: $0[1], teams: $0[2]) }
            }
        }
    }
}
