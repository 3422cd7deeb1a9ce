import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// A read-only container in this process following a store that other processes write
/// (`logbook import`) and compact (`logbook compact`): `refresh()` takes in each save whole,
/// lists and publishes its changes, and survives the compaction and removal of the segments it
/// read.
@Suite struct ReaderProcessTests {
    /// The employees store of ``ObjectStores/employees(at:)`` at `path`, opened read-only, and
    /// the changes it publishes as they come.
    private func openReader(at path: String) throws -> (
        ModelContainer, Published, ChangeObservation
    ) {
        try ObjectStores.employees(at: path)
        var options = LogStoreOptions()
        options.readOnly = true
        let reader = try ModelContainer(
            for: [Employee.self], at: URL(fileURLWithPath: path), options: options)
        let published = Published()
        let observation = reader.observeChanges { changes in
            published.changes.withLock { $0.append(changes) }
        }
        return (reader, published, observation)
    }

    /// What a container published.
    private final class Published: Sendable {
        let changes = Locked<[SavedChanges]>([])
        var all: [SavedChanges] { changes.withLock { $0 } }
    }

    @Test func aReadOnlyContainerFollowsSavesAndCompactionsOfAnotherProcess() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let (reader, published, observation) = try openReader(at: path)
        defer {
            observation.cancel()
            try? reader.close()
        }
        func names() throws -> [String] {
            try ModelContext(reader).fetch(FetchDescriptor<Employee>()).map(\.name).sorted()
        }
        func engineers() throws -> Int {
            try ModelContext(reader).fetchCount(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "Engineer" }))
        }
        var expected = ["Ann", "Bo"]
        #expect(try names() == expected)
        #expect(try reader.refresh().isEmpty)
        for round in 0..<6 {
            let added = ["r\(round)a", "r\(round)b"]
            let input = added.map {
                "{\"_entity\":\"Employee\",\"name\":\"\($0)\",\"designation\":\"Engineer\"}\n"
            }.joined()
            let imported = try CLI.run(["import", path, "-"], input: input)
            try #require(imported.status == 0, "\(imported.stderr)")
            if round % 2 == 1 {
                let compacted = try CLI.run(["compact", path])
                try #require(compacted.status == 0, "\(compacted.stderr)")
            }
            // Not seen before the refresh.
            #expect(try names() == expected, "round \(round)")
            expected = (expected + added).sorted()
            let saved = try reader.refresh()
            #expect(try names() == expected, "round \(round)")
            // The index on designation follows too.
            #expect(try engineers() == expected.count - 1, "round \(round)")
            #expect(saved.count == 1, "round \(round): \(saved)")
            #expect(saved.first?.inserted.count == 2)
            #expect(try reader.refresh().isEmpty)
        }
        // Published to observers as well (delivered asynchronously).
        let deadline = Date().addingTimeInterval(5)
        while published.all.count < 6 && Date() < deadline { usleep(10_000) }
        #expect(published.all.map(\.inserted.count) == Array(repeating: 2, count: 6))
    }

    /// Following: observers hear of another process's saves with no call to `refresh()`.
    @Test func aFollowingContainerPublishesAnotherProcesssSaves() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        let (reader, published, observation) = try openReader(at: path)
        defer {
            observation.cancel()
            try? reader.close()
        }
        let following = reader.followChanges(every: 0.02) { error in
            Issue.record("refresh failed: \(error)")
        }
        for round in 0..<3 {
            let input = "{\"_entity\":\"Employee\",\"name\":\"f\(round)\"}\n"
            try #require(try CLI.run(["import", path, "-"], input: input).status == 0)
            if round == 1 { try #require(try CLI.run(["compact", path]).status == 0) }
            let deadline = Date().addingTimeInterval(10)
            while published.all.count <= round && Date() < deadline {
                usleep(10_000)
            }
            #expect(published.all.count == round + 1, "round \(round)")
        }
        following.cancel()
        let names = try ModelContext(reader).fetch(FetchDescriptor<Employee>()).map(\.name)
        #expect(names.sorted() == ["Ann", "Bo", "f0", "f1", "f2"])
    }
}
