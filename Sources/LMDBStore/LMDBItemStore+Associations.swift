import CLMDB
import Foundation
import PersistenceBench

/// `lmdb`'s sports and teams, in the databases and layouts of `LMDBGraphDatabases.swift`.
extension LMDBItemStore: AssociationStore {
    package func insert(sports: [Sport]) throws {
        try environment.write { transaction in
            for sport in sports {
                try ItemCodec.withKey(sport.id) { key in
                    try GraphCodec.put(sport.name, after: [], in: graph.sports, key: key, transaction)
                }
            }
        }
    }

    package func insert(teams: [Team]) throws {
        try environment.write { transaction in
            for team in teams {
                try ItemCodec.withKey(team.id) { teamKey in
                    try ItemCodec.withKey(team.sportID) { sportKey in
                        try GraphCodec.put(team.name, after: [sportKey], in: graph.teams, key: teamKey, transaction)
                        try transaction.put(in: graph.teamsBySport, key: sportKey, value: teamKey, flags: MDB_NODUPDATA)
                    }
                }
            }
        }
    }

    package func teamCountsBySport() throws -> [TeamCount] {
        try environment.read { transaction in
            try transaction.withCursor(on: graph.sports) { sports in
                try transaction.withCursor(on: graph.teamsBySport) { index in
                    var counts: [TeamCount] = []
                    var indexEntry = try index.move(MDB_FIRST)
                    var sportEntry = try sports.move(MDB_FIRST)
                    while let sport = sportEntry {
                        let id = try ItemCodec.id(fromKey: sport.key)
                        var teams = 0
                        if let entry = indexEntry, try ItemCodec.id(fromKey: entry.key) == id {
                            teams = try index.duplicateCount()
                            indexEntry = try index.move(MDB_NEXT_NODUP)
                        }
                        counts.append(
                            TeamCount(sportID: id, sportName: GraphCodec.text(sport.value, from: 0), teams: teams))
                        sportEntry = try sports.move(MDB_NEXT)
                    }
                    guard indexEntry == nil else {
                        throw LMDBError.corrupted(
                            "counting teams", "the index lists teams of a sport that is not stored")
                    }
                    return counts
                }
            }
        }
    }
}
