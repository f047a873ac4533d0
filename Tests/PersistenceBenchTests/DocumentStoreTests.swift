import Foundation
import PersistenceBench
import Testing

/// `json` and `plist`: a commit is the whole document in the file, replaced atomically, before the call returns.
@Suite struct DocumentStoreTests {
    let generator = ItemGenerator(seed: 9)

    func documentFile(of name: String, in directory: URL) -> URL {
        directory.appendingPathComponent("store.\(name)")
    }

    /// What a second process would find if this one were killed now: the directory opened by another store.
    ///
    /// The items of the document on disk, read by a store opened on a copy of it: the open store holds the lock.
    func itemsOnDisk(_ name: String, in directory: URL) throws -> [Item] {
        let copy = try TemporaryDirectory()
        let document = documentFile(of: name, in: directory)
        if FileManager.default.fileExists(atPath: document.path) {
            try FileManager.default.copyItem(at: document, to: documentFile(of: name, in: copy.url))
        }
        let reader = try openItemStore(storeKind(name), at: copy.url)
        defer { try? reader.close() }
        return try allItems(in: reader)
    }

    @Test(arguments: ["json", "plist"])
    func everyCommitIsInTheFileWhenItReturns(store name: String) throws {
        let directory = try TemporaryDirectory()
        let store = try openItemStore(storeKind(name), at: directory.url)
        var expected = generator.items(1...300)
        try store.insert(Array(expected[..<150]))
        try store.insert(Array(expected[150...]))
        #expect(try itemsOnDisk(name, in: directory.url).isEmpty, "a bulk load commits at its end, not per batch")
        try store.finishInserting()
        #expect(try itemsOnDisk(name, in: directory.url) == expected)

        let update = ItemUpdate(id: 7, title: "renamed in a commit", isInStock: true, price: 1.25)
        try store.update([update])
        update.apply(to: &expected[6])
        #expect(try itemsOnDisk(name, in: directory.url) == expected)

        try store.delete(ids: [1, 2])
        expected.removeFirst(2)
        #expect(try itemsOnDisk(name, in: directory.url) == expected)

        let added = generator.item(id: 301)
        try store.insertDurably(added)
        expected.append(added)
        #expect(try itemsOnDisk(name, in: directory.url) == expected)

        let imported = generator.items(302...310)
        try store.insertCommitted(imported)
        #expect(try itemsOnDisk(name, in: directory.url) == expected + imported)
        try store.close()
        // The atomic replace leaves the document and nothing else but the lock's empty file.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
                == ["store.\(name)", DirectoryLock.fileName].sorted())
    }

    @Test func theDocumentsAreWhatTheirEncodersWrite() throws {
        let directory = try TemporaryDirectory()
        let items = generator.items(1...50)
        for name in ["json", "plist"] {
            let subdirectory = try directory.subdirectory(name)
            let store = try openItemStore(storeKind(name), at: subdirectory)
            try load(items, into: store)
            try store.close()
            let data = try Data(contentsOf: documentFile(of: name, in: subdirectory))
            if name == "json" {
                let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                #expect((object["items"] as? [Any])?.count == 50)
            } else {
                #expect(data.prefix(8) == Data("bplist00".utf8))
                var format = PropertyListSerialization.PropertyListFormat.xml
                let object = try PropertyListSerialization.propertyList(from: data, format: &format) as? [String: Any]
                #expect(format == .binary)
                #expect((object?["items"] as? [Any])?.count == 50)
            }
        }
    }

    @Test(arguments: ["json", "plist"])
    func aTornDocumentFailsToOpenNamingItsFile(store name: String) throws {
        let directory = try TemporaryDirectory()
        let store = try openItemStore(storeKind(name), at: directory.url)
        try load(generator.items(1...100), into: store)
        try store.close()
        let file = documentFile(of: name, in: directory.url)
        let data = try Data(contentsOf: file)
        try data.prefix(data.count / 2).write(to: file)
        #expect {
            try openItemStore(storeKind(name), at: directory.url)
        } throws: { error in
            "\(error)".contains("\(file.path) cannot be decoded")
        }
    }

    /// `memory`'s dump and the documents keep every kind of record: the league, houses and the profile.
    @Test(arguments: ["json", "plist", "memory"])
    func everyRecordKindSurvivesReopening(store name: String) throws {
        let directory = try TemporaryDirectory()
        let league = LeagueGenerator(seed: 3, teams: 300)
        let houses = HouseGenerator(seed: 3, scale: 200).houses(1...20)
        let samples = SampleGenerator(seed: 3).samples(0..<500)
        var store = try open(name, as: (any ProfileStore & HouseStore & AssociationStore).self, at: directory.url)
        try store.insert(sports: league.sports)
        try store.insert(teams: (1...300).map(league.team(id:)))
        try store.insert(houses: houses)
        try store.insert(samples: samples)
        try store.finishInserting()
        try store.deleteHouses(ids: [4])
        let counts = try store.teamCountsBySport()
        let top = try store.topLeafFrames(from: samples[100].timestamp, samples: 200, limit: 5)
        try store.close()
        store = try open(name, as: (any ProfileStore & HouseStore & AssociationStore).self, at: directory.url)
        #expect(try store.teamCountsBySport() == counts)
        var reread: [House] = []
        try store.forEachHouse { reread.append($0) }
        #expect(reread == houses.filter { $0.id != 4 })
        var rereadSamples: [Sample] = []
        try store.forEachSample { rereadSamples.append($0) }
        #expect(rereadSamples == samples)
        #expect(try store.topLeafFrames(from: samples[100].timestamp, samples: 200, limit: 5) == top)
        try store.close()
    }
}
