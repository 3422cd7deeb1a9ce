import Foundation
import Logbook
import TestSupport
import Testing

/// Changes a store follows without a plan and without rewriting a record: one test per kind.
@MainActor @Suite struct LightweightMigrationTests {
    static let employee = Entity(
        name: "Employee",
        attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("nickname", .string, optional: true),
            AttributeDescription("level", .int32),
            AttributeDescription("salary", .integer),
        ])

    /// A store of `employee` with Ann (nickname nil), Bob ("B") and Cy ("C").
    private func seeded() throws -> LogbookFixture {
        let fixture = LogbookFixture()
        let container = try fixture.open(schema: Schema([Self.employee]))
        for (name, nickname, level, salary) in [
            ("Ann", nil, 1, 100), ("Bob", "B", 2, 200), ("Cy", "C", 2, 300),
        ] as [(String, String?, Int, Int)] {
            try container.mainContext.insert(
                entity: "Employee",
                values: ["name": name, "nickname": nickname, "level": level, "salary": salary])
        }
        try container.mainContext.save()
        try container.close()
        return fixture
    }

    private func reopened(_ fixture: LogbookFixture, _ change: (inout Entity) -> Void) throws
        -> ModelContainer
    {
        var entity = Self.employee
        change(&entity)
        return try fixture.open(schema: Schema([entity]))
    }

    private func values(_ container: ModelContainer, _ key: String) throws -> [String] {
        try ModelContext(container).fetch(entity: "Employee", sortBy: "salary").map {
            "\(try $0.value(forKey: key) ?? "nil")"
        }
    }

    private func loggedBytes(_ fixture: LogbookFixture) -> Int {
        segmentFiles(fixture.url.path).map { readFile($0).count }.reduce(0, +)
    }

    @Test func removingAnAttributeKeepsTheOthers() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        let container = try reopened(fixture) { $0.attributes.remove(at: 1) }
        #expect(container.schema.version == 2)
        #expect(try values(container, "name") == ["Ann", "Bob", "Cy"])
        #expect(container.schema.entity(named: "Employee")?.attributeIndex("nickname") == nil)
        #expect(throws: LogbookError.self) {
            try ModelContext(container).fetch(entity: "Employee").first?.value(forKey: "nickname")
        }
    }

    @Test func renamingThroughOriginalNameKeepsValuesAndRewritesNoRecord() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        let before = loggedBytes(fixture)
        let container = try reopened(fixture) {
            $0.attributes[0] = AttributeDescription("fullName", .string, originalName: "name")
        }
        #expect(try values(container, "fullName") == ["Ann", "Bob", "Cy"])
        let bobs = try ModelContext(container).fetch(entity: "Employee", where: "fullName == 'Bob'")
        #expect(bobs.count == 1)
        #expect(loggedBytes(fixture) - before < 512)
        try container.mainContext.insert(
            entity: "Employee", values: ["fullName": "Di", "level": 3, "salary": 400])
        try container.mainContext.save()
        try container.close()
        // A second rename: records of both earlier versions read under the newest name.
        let again = try reopened(fixture) {
            $0.attributes[0] = AttributeDescription(
                "displayName", .string, originalName: "fullName")
        }
        #expect(again.schema.version == 3)
        #expect(try values(again, "displayName") == ["Ann", "Bob", "Cy", "Di"])
    }

    @Test func optionalToRequiredTakesTheDefaultWhereThereWasNone() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        #expect(
            throws: LogbookError.incompatibleSchema(
                entity: "Employee", attribute: "nickname",
                reason: "it became required without a default value for the objects that have none")
        ) { try self.reopened(fixture) { $0.attributes[1].isOptional = false } }
        let container = try reopened(fixture) {
            $0.attributes[1].isOptional = false
            $0.attributes[1].defaultValue = .string("none")
        }
        #expect(try values(container, "nickname") == ["none", "B", "C"])
    }

    @Test func aNullMadeRequiredThenOptionalAgainKeepsTheDefaultItTook() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        try reopened(fixture) {
            $0.attributes[1].isOptional = false
            $0.attributes[1].defaultValue = .string("none")
        }.close()
        // Optional again: Ann's record is still of version 1, where her nickname was null, but
        // version 2 gave her "none", and what a version showed stays.
        let container = try reopened(fixture) { _ in }
        #expect(container.schema.version == 3)
        #expect(try values(container, "nickname") == ["none", "B", "C"])
    }

    @Test func wideningInt32ToInt64AndIntToDouble() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        let container = try reopened(fixture) {
            $0.attributes[2].type = .integer
            $0.attributes[3].type = .double
        }
        let context = ModelContext(container)
        let rows = try context.fetch(entity: "Employee", sortBy: "salary")
        #expect(try rows.map { try $0.value(forKey: "level") as? Int64 } == [1, 2, 2])
        #expect(try rows.map { try $0.value(forKey: "salary") as? Double } == [100, 200, 300])
        #expect(try context.fetch(entity: "Employee", where: "salary > 150.5").count == 2)
    }

    @Test func aChangeThatIsNotAWideningIsRefused() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        #expect(
            throws: LogbookError.incompatibleSchema(
                entity: "Employee", attribute: "salary",
                reason:
                    "its type changed from Int64 to String, which is not a widening; convert its values in a custom migration stage"
            )
        ) { try self.reopened(fixture) { $0.attributes[3].type = .string } }
        #expect(throws: LogbookError.self) {
            try self.reopened(fixture) { $0.attributes[3].type = .int32 }
        }
    }

    @Test func aScalarBecomesOptional() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        let container = try reopened(fixture) { $0.attributes[3].isOptional = true }
        #expect(try values(container, "salary") == ["100", "200", "300"])
        let ann = try #require(
            try container.mainContext.fetch(entity: "Employee", where: "name == 'Ann'").first)
        try ann.setValue(nil, forKey: "salary")
        try container.mainContext.save()
        #expect(
            try ModelContext(container).fetch(entity: "Employee", where: "name == 'Ann'").first?
                .value(forKey: "salary") == nil)
    }

    @Test func addingAndRemovingARelationshipAndAnEntity() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        let company = Entity(
            name: "Company", attributes: [AttributeDescription("title", .string)],
            relationships: [
                RelationshipDescription(
                    "staff", destination: "Employee", toMany: true, inverse: "employer")
            ])
        var employee = Self.employee
        employee.relationships = [
            RelationshipDescription("employer", destination: "Company", inverse: "staff")
        ]
        let container = try fixture.open(schema: Schema([employee, company]))
        let context = container.mainContext
        let acme = try context.insert(entity: "Company", values: ["title": "Acme"])
        let ann = try #require(try context.fetch(entity: "Employee", where: "name == 'Ann'").first)
        #expect(try ann.value(forKey: "employer") == nil)
        try ann.setValue(acme, forKey: "employer")
        try context.save()
        try container.close()
        // Renamed through originalName: the reference follows.
        var renamed = employee
        renamed.relationships = [
            RelationshipDescription(
                "company", destination: "Company", inverse: "staff", originalName: "employer")
        ]
        var renamedCompany = company
        renamedCompany.relationships[0].inverse = "company"
        let again = try fixture.open(schema: Schema([renamed, renamedCompany]))
        let found = try #require(
            try again.mainContext.fetch(entity: "Employee", where: "name == 'Ann'").first)
        let reached = try #require(try found.value(forKey: "company") as? any ModelObject)
        #expect(try reached.value(forKey: "title") as? String == "Acme")
        try again.close()
        // Removed, with the entity: the employees stay.
        let without = try fixture.open(schema: Schema([Self.employee]))
        #expect(try values(without, "name") == ["Ann", "Bob", "Cy"])
    }

    @Test func addingAnIndexAnswersFromIt() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        let container = try reopened(fixture) { $0.attributes[0].isIndexed = true }
        let context = ModelContext(container)
        #expect(try context.fetch(entity: "Employee", where: "name == 'Cy'").count == 1)
        #expect(try context.fetch(entity: "Employee", where: "name >= 'B'").count == 2)
    }

    @Test func aUniqueConstraintOverDuplicatesIsRefusedNamingThemAndChangesNothing() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        let before = try fixture.directory.allFileBytes()
        #expect(
            throws: LogbookError.uniqueConstraint(
                entity: "Employee", attribute: "level", value: "2", object: "Employee/3",
                existing: "Employee/2")
        ) { try self.reopened(fixture) { $0.attributes[2].isUnique = true } }
        #expect(try fixture.directory.allFileBytes() == before)
        // Without duplicates it is added, and then enforced.
        let container = try reopened(fixture) { $0.attributes[0].isUnique = true }
        try container.mainContext.insert(
            entity: "Employee", values: ["name": "Ann", "level": 1, "salary": 1])
        #expect(throws: LogbookError.self) { try container.mainContext.save() }
    }

    @Test func compactionKeepsOldVersionRecordsReadable() throws {
        let fixture = try seeded()
        defer { fixture.remove() }
        let container = try reopened(fixture) {
            $0.attributes[0] = AttributeDescription("fullName", .string, originalName: "name")
            $0.attributes[2].type = .integer
        }
        _ = try container.store.compact()
        try container.close()
        let again = try reopened(fixture) {
            $0.attributes[0] = AttributeDescription("fullName", .string)
            $0.attributes[2].type = .integer
        }
        #expect(again.schema.version == 2)
        #expect(try values(again, "fullName") == ["Ann", "Bob", "Cy"])
        #expect(try values(again, "level") == ["1", "2", "2"])
    }
}

extension TemporaryDirectory {
    /// Every file under the directory with its bytes, by path.
    func allFileBytes() throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let full = path + "/" + name
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files[name] = readFile(full)
            }
        }
        return files
    }
}
