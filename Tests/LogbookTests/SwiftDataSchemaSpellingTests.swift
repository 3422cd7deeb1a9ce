import Foundation
import Logbook
import TestSupport
import Testing

/// SwiftData's `Schema([…])`, `ModelContainer(for: schema, configurations: [config])` and
/// `FetchDescriptor.relationshipKeyPathsForPrefetching` (issue 34).
@MainActor @Suite struct SwiftDataSchemaSpellingTests {
    @Test func aSchemaOfClassesOpensAContainerWithAnArrayOfConfigurations() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let schema = Schema([Employee.self])
        #expect(schema.entities.map(\.name) == ["Employee"])
        let config = ModelConfiguration(url: fixture.url)
        do {
            let container = try ModelContainer(for: schema, configurations: [config])
            container.mainContext.insert(Employee(name: "Ann", salary: 1))
            try container.mainContext.save()
            try container.close()
        }
        let container = try ModelContainer(for: Schema([Employee.self]), configurations: [config])
        #expect(try container.mainContext.fetch(FetchDescriptor<Employee>()).map(\.name) == ["Ann"])
        let inMemory = try ModelContainer(for: schema, configurations: [])
        #expect(try inMemory.mainContext.fetch(FetchDescriptor<Employee>()).isEmpty)
    }

    @Test func twoConfigurationsOrASchemaByNameAreRefused() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let config = ModelConfiguration(url: fixture.url)
        #expect(throws: LogbookError.self) {
            _ = try ModelContainer(for: Schema([Employee.self]), configurations: [config, config])
        }
        let byName = Schema([
            Entity(name: "Employee", attributes: [AttributeDescription("name", .string)])
        ])
        #expect(throws: LogbookError.self) {
            _ = try ModelContainer(for: byName, configurations: [config])
        }
    }

    @Test func prefetchingLoadsTheRelatedObjects() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Company.self, StaffedEmployee.self])
        let context = container.mainContext
        let acme = Company(name: "Acme")
        context.insert(acme)
        context.insert(StaffedEmployee(name: "Ann", company: acme))
        try context.save()
        let fresh = ModelContext(container)
        var descriptor = FetchDescriptor<StaffedEmployee>()
        descriptor.relationshipKeyPathsForPrefetching = [\.company]
        let employees = try fresh.fetch(descriptor)
        #expect(employees.count == 1)
        #expect(
            fresh.registeredModel(for: PersistentIdentifier(entityName: "Company", primaryKey: 1))
                as Company? != nil, "the company is registered by the fetch")
        #expect(employees[0].company?.name == "Acme")
    }
}
