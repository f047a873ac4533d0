import Foundation
import PersistenceBench
import SQLiteSupport

/// `sqlite`'s sports and teams: the same schema as `grdb` writes with `belongsTo` (a foreign key with
/// `ON DELETE CASCADE`, an index on it), created with the item table when the store is created. Team counts are one
/// grouped LEFT JOIN.
extension SQLiteItemStore: AssociationStore {
    static let leagueSchema = """
        CREATE TABLE IF NOT EXISTS "sport" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS "team" ("id" INTEGER PRIMARY KEY, \
        "sportId" INTEGER NOT NULL REFERENCES "sport"("id") ON DELETE CASCADE, "name" TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS "team_on_sportId" ON "team"("sportId");
        """

    package func insert(sports: [Sport]) throws {
        try connection.transaction {
            try withStatement("INSERT INTO sport (id, name) VALUES (?, ?)") { statement in
                for sport in sports {
                    statement.bind(sport.id, at: 1)
                    try statement.withText(sport.name, at: 2) { try execute(statement) }
                }
            }
        }
    }

    package func insert(teams: [Team]) throws {
        try connection.transaction {
            try withStatement("INSERT INTO team (id, sportId, name) VALUES (?, ?, ?)") { statement in
                for team in teams {
                    statement.bind(team.id, at: 1)
                    statement.bind(team.sportID, at: 2)
                    try statement.withText(team.name, at: 3) { try execute(statement) }
                }
            }
        }
    }

    package func teamCountsBySport() throws -> [TeamCount] {
        try withStatement(
            "SELECT sport.id, sport.name, COUNT(team.id) FROM sport LEFT JOIN team ON team.sportId = sport.id "
                + "GROUP BY sport.id ORDER BY sport.id"
        ) { statement in
            var counts: [TeamCount] = []
            while try statement.step() {
                counts.append(
                    TeamCount(
                        sportID: statement.int64(at: 0), sportName: statement.text(at: 1),
                        teams: Int(statement.int64(at: 2))))
            }
            return counts
        }
    }
}
