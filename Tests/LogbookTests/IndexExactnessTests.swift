import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// The indexes stay exactly what the stored records give, whatever changes the store:
/// checked with ``ModelContainer/indexProblems()`` (a rebuild from the records, compared entry
/// by entry) after each step of seeded random work, and across reopens, a stale or damaged
/// sidecar, compaction and a schema migration that adds an index.
@MainActor @Suite struct IndexExactnessTests {
    @Test func randomWorkKeepsTheIndexesExact() throws {
        let seed = testSeed("randomWorkKeepsTheIndexesExact")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var container: ModelContainer? = try fixture.open([Staff.self, Team.self])
        func fresh(_ container: ModelContainer) -> ModelContext {
            let context = ModelContext(container)
            context.mergePolicy = .contextWins
            return context
        }
        var context = fresh(container!)
        var other = fresh(container!)
        let designations = ["Engineer", "Manager", "Clerk"]
        var serial = 0
        for step in 0..<120 {
            let c = container!
            switch Int.random(in: 0..<10, using: &rng) {
            case 0, 1:  // inserts, some with a team
                let teams = try context.fetch(FetchDescriptor<Team>())
                for _ in 0..<Int.random(in: 1...20, using: &rng) {
                    serial += 1
                    context.insert(
                        Staff(
                            "s\(serial)", designation: designations.randomElement(using: &rng)!,
                            salary: Int64.random(in: 0..<50, using: &rng),
                            team: Bool.random(using: &rng) ? teams.randomElement(using: &rng) : nil)
                    )
                }
                if Bool.random(using: &rng) { context.insert(Team("team\(serial)")) }
            case 2, 3:  // changes of indexed values
                for staff in try context.fetch(FetchDescriptor<Staff>()).shuffled(using: &rng)
                    .prefix(10)
                {
                    staff.salary = Int64.random(in: 0..<50, using: &rng)
                    if Bool.random(using: &rng) {
                        staff.designation = designations.randomElement(using: &rng)!
                    }
                }
            case 4:  // deletes
                for staff in try context.fetch(FetchDescriptor<Staff>()).shuffled(using: &rng)
                    .prefix(5)
                {
                    context.delete(staff)
                }
            case 5:  // a rollback of whatever is pending
                context.rollback()
            case 6:  // batch operations
                let low = Int64.random(in: 0..<50, using: &rng)
                try context.update(model: Staff.self, where: #Predicate { $0.salary < low }) {
                    $0.salary += 7
                }
                try context.delete(model: Staff.self, where: #Predicate { $0.salary == low })
            case 7:  // another context saves
                for staff in try other.fetch(FetchDescriptor<Staff>()).shuffled(using: &rng).prefix(
                    3)
                {
                    staff.designation = designations.randomElement(using: &rng)!
                }
                try other.save()
                other = fresh(c)
            case 8:  // reopen
                try context.save()
                try c.close()
                container = nil
                container = try fixture.open([Staff.self, Team.self])
                context = fresh(container!)
                other = fresh(container!)
            default:
                try context.save()
            }
            if !context.hasChanges || step % 10 == 0 {
                let problems = try container!.indexProblems()
                #expect(problems == [], "seed \(seed), step \(step): \(problems)")
            }
        }
        try context.save()
        _ = try container!.store.compact()
        #expect(try container!.indexProblems() == [], "seed \(seed): after compaction")
        try container!.close()
        let reopened = try fixture.open([Staff.self, Team.self])
        #expect(reopened.indexesReadFromSidecar)
        #expect(try reopened.indexProblems() == [], "seed \(seed): after reopening")
    }

    @Test func aSidecarThatDoesNotDescribeTheStoreIsNotUsed() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open([Staff.self, Team.self])
            for i in 0..<50 { container.mainContext.insert(Staff("s\(i)", salary: Int64(i))) }
            try container.mainContext.save()
            try container.close()
        }
        do {
            let container = try fixture.open([Staff.self, Team.self])
            #expect(container.indexesReadFromSidecar)
            try container.close()
        }
        // A commit the sidecar does not know (as after a crash, or another writer).
        do {
            let store = try LogStore(path: fixture.url.path)
            try store.delete(RecordCodec_key(7), in: "Staff")
            try store.close()
            let container = try fixture.open([Staff.self, Team.self])
            #expect(!container.indexesReadFromSidecar)
            #expect(try container.indexProblems() == [])
            #expect(
                try container.mainContext.fetchCount(
                    FetchDescriptor<Staff>(predicate: #Predicate { $0.salary < 10 })) == 9)
            try container.close()
        }
        // Damaged bytes in the sidecar: built from the records instead.
        let sidecar = fixture.url.path + "/logbook-indexes.sidecar"
        var bytes = readFile(sidecar)
        #expect(bytes.count > 100)
        bytes[bytes.count / 2] ^= 0xFF
        writeFile(sidecar, bytes)
        let container = try fixture.open([Staff.self, Team.self])
        #expect(!container.indexesReadFromSidecar)
        #expect(try container.indexProblems() == [])
        #expect(
            try container.mainContext.fetchCount(
                FetchDescriptor<Staff>(predicate: #Predicate { $0.salary < 10 })) == 9)
    }

    @Test func anIndexAddedByAMigrationIsBuiltFromTheRecords() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let plain = Schema([
            Entity(name: "Item", attributes: [AttributeDescription("code", .integer)])
        ])
        do {
            let container = try fixture.open(schema: plain)
            for i in 0..<100 {
                try container.mainContext.insert(entity: "Item", values: ["code": i % 10])
            }
            try container.mainContext.save()
            try container.close()
        }
        let indexed = Schema([
            Entity(
                name: "Item", attributes: [AttributeDescription("code", .integer, indexed: true)])
        ])
        let container = try fixture.open(schema: indexed)
        #expect(container.schema.version == 2)
        #expect(container.indexStatistics().map(\.entries) == [100])
        let explanation = try container.mainContext.explain(
            EntityFetchDescriptor(entityName: "Item", predicate: try StringPredicate("code == 3")))
        #expect(explanation.access == .index && explanation.results == 10)
    }

    @Test func statisticsReportEntriesAndMemory() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Staff.self, Team.self])
        let team = Team("a")
        container.mainContext.insert(team)
        for i in 0..<1000 {
            container.mainContext.insert(Staff("s\(i)", salary: Int64(i), team: team))
        }
        try container.mainContext.save()
        let statistics = container.indexStatistics()
        #expect(
            Set(statistics.map { "\($0.entity)(\($0.fields.joined(separator: ", ")))" }) == [
                "Staff(name)", "Staff(designation)", "Staff(salary)", "Staff(email)",
                "Staff(designation, salary)", "Staff(team)", "Team(name)",
            ])
        for statistic in statistics {
            #expect(statistic.entries == (statistic.entity == "Staff" ? 1000 : 1))
            if statistic.entity == "Staff" {
                #expect(statistic.bytesPerEntry > 9 && statistic.bytesPerEntry < 80, "\(statistic)")
            }
        }
        #expect(statistics.first { $0.fields == ["email"] }?.isUnique == true)
    }
}

/// The key of primary key `pk` (big-endian), as FORMAT.md Part 2 gives it.
private func RecordCodec_key(_ pk: UInt64) -> [UInt8] {
    withUnsafeBytes(of: pk.bigEndian) { Array($0) }
}
