import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// A store written before many-to-many relationships existed opens unchanged: the same schema
/// version and bytes, its relationships working, and nothing rewritten until a save.
@MainActor @Suite struct PreviousFormatFixtureTests {
    private static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Staff-v3.logbook")

    @Test func theStoreOpensWithItsSchemaAndObjectsUnchanged() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("Staff-v3.logbook")
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
        let segment = path + "/0000000000010000.seg"
        let before = readFile(segment)
        #expect(!before.isEmpty)
        do {
            let container = try ModelContainer(
                for: [Company.self, StaffedEmployee.self], at: URL(filePath: path))
            #expect(container.schema.version == 1, "no new schema version was written")
            let context = ModelContext(container)
            let companies = try context.fetch(
                FetchDescriptor<Company>(sortBy: [SortDescriptor(\.name)]))
            let staff = try context.fetch(
                FetchDescriptor<StaffedEmployee>(sortBy: [SortDescriptor(\.name)]))
            #expect(companies.map(\.name) == ["Acme", "Initech"])
            #expect(staff.map(\.name) == ["Ann", "Bob"] && staff.map(\.salary) == [50, 7])
            #expect(staff.allSatisfy { $0.company == nil })
            try container.close()
        }
        #expect(readFile(segment) == before, "opening and reading wrote nothing to the log")
        let container = try ModelContainer(
            for: [Company.self, StaffedEmployee.self], at: URL(filePath: path))
        let context = ModelContext(container)
        let acme = try #require(
            try context.fetch(FetchDescriptor<Company>(predicate: #Predicate { $0.name == "Acme" }))
                .first)
        acme.employees = try context.fetch(FetchDescriptor<StaffedEmployee>())
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Company>()).map { $0.employees.count } == [2, 0])
        #expect(container.schema.version == 1)
    }
}
