import Foundation
import Logbook
import TestSupport
import Testing

/// The README's example, line for line (inside a test, with a temporary store), so it keeps
/// compiling and doing what it says.
@MainActor @Suite struct ReadmeExampleTests {
    final class Employee: PersistentModel {
        @Attribute var name = ""
        @Attribute(.indexed) var designation = ""
        @Attribute var salary: Int64 = 0
        init() {}
    }

    @Test func theReadmeExampleRuns() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let url = URL(filePath: dir.child("Employees.logbook"))

        let container = try ModelContainer(for: [Employee.self], at: url)
        let context = container.mainContext
        let ann = Employee()
        ann.name = "Ann"
        ann.designation = "Engineer"
        ann.salary = 2_000_000
        context.insert(ann)
        try context.save()  // durable when it returns
        ann.salary = 3_000_000
        try context.save()  // update = mutate, then save
        let engineers = try context.fetch(
            FetchDescriptor<Employee>(
                predicate: #Predicate { $0.designation == "Engineer" },
                sortBy: [SortDescriptor(\.salary, order: .reverse)]))

        #expect(engineers.map(\.name) == ["Ann"])
        #expect(engineers.first?.salary == 3_000_000)
    }

    /// The README's "Using Logbook in your package" lines: a container in memory.
    @Test func theInMemoryConfigurationFromTheReadmeRuns() throws {
        let container = try ModelContainer(
            for: Employee.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        container.mainContext.insert(Employee())
        try container.mainContext.save()
        #expect(try container.mainContext.fetchCount(FetchDescriptor<Employee>()) == 1)
    }
}
