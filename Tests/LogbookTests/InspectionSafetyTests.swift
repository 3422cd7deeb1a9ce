import Foundation
import Logbook
import TestSupport
import Testing

/// Reflection, printing and failing expectations on contexts and model objects (issue 12,
/// "Objects safe to inspect"), and how long a context keeps its container. Each scenario that
/// once trapped runs in a child process, so a crash fails the test instead of the run.
@MainActor @Suite struct InspectionSafetyTests {
    /// A store with three saved Employees, where most fetched objects were already let go.
    /// (Called in exit tests' child processes, off the main actor.)
    nonisolated private static func scenario(_ path: String) throws -> (
        ModelContainer, ModelContext, Employee
    ) {
        let container = try ModelContainer(for: [Employee.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        for name in ["Ann", "Bob", "Cid"] {
            context.insert(Employee(name: name, designation: "Engineer", salary: 100))
        }
        try context.save()
        // Fetch many and drop them, so the context has registered objects the app let go of.
        for _ in 0..<3 { _ = try ModelContext(container).fetch(FetchDescriptor<Employee>()) }
        _ = try context.fetch(FetchDescriptor<Employee>())
        let kept = try #require(
            try context.fetch(FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.name)])).first)
        kept.salary = 200
        context.insert(Employee(name: "Dan"))
        return (container, context, kept)
    }

    @Test func dumpOfAContextAndItsObjectsIsSafeAndReadable() async {
        let directory = TemporaryDirectory("inspect-dump")
        defer { directory.remove() }
        await #expect(processExitsWith: .success) {
            [path = directory.child("s.logbook") as String] in
            let (container, context, ann) = try InspectionSafetyTests.scenario(path)
            var text = ""
            dump(context, to: &text)
            dump(ann, to: &text)
            dump(container, to: &text)
            dump(context.insertedModels, to: &text)
            text += String(describing: context) + String(reflecting: ann)
            text += "\(Mirror(reflecting: ann).children.map { "\($0.label ?? ""): \($0.value)" })"
            guard text.contains("registered"), text.contains("Ann"), text.contains("200") else {
                exit(3)
            }
        }
    }

    @Test func failingExpectationsThatMentionContextsAndObjectsAreSafe() async {
        let directory = TemporaryDirectory("inspect-expect")
        defer { directory.remove() }
        await #expect(processExitsWith: .success) {
            [path = directory.child("s.logbook") as String] in
            let (_, context, ann) = try InspectionSafetyTests.scenario(path)
            withKnownIssue {
                #expect(context.hasChanges == false)
                #expect(ann.name == "Zed")
                #expect(context.insertedModels.isEmpty)
            }
        }
    }

    @Test func dynamicObjectsAreSafeToInspect() async {
        let directory = TemporaryDirectory("inspect-dynamic")
        defer { directory.remove() }
        await #expect(processExitsWith: .success) {
            [path = directory.child("s.logbook") as String] in
            let schema = Schema([
                Entity(
                    name: "Note",
                    attributes: [AttributeDescription("text", .string, defaultValue: .string(""))])
            ])
            let container = try ModelContainer(schema: schema, at: URL(fileURLWithPath: path))
            let context = ModelContext(container)
            let note = try context.insert(entity: "Note", values: ["text": "hi"])
            var text = ""
            dump(note, to: &text)
            dump(context, to: &text)
            guard text.contains("hi"), String(describing: note).contains("Note/1") else { exit(3) }
        }
    }

    @Test func mainContextWorksAfterItsContainerIsGone() async {
        let directory = TemporaryDirectory("inspect-main")
        defer { directory.remove() }
        await #expect(processExitsWith: .success) {
            [path = directory.child("s.logbook") as String] in
            try await MainActor.run {
                let context = try ModelContainer(
                    for: [Employee.self], at: URL(fileURLWithPath: path)
                ).mainContext
                context.insert(Employee(name: "Ann", salary: 2_000_000))
                try context.save()
                let ann = try context.fetch(FetchDescriptor<Employee>()).first
                guard ann?.salary == 2_000_000, context.container.url.path == path else { exit(3) }
                guard context.container.mainContext === context else { exit(4) }
            }
        }
    }

    @Test func aContextKeepsItsContainerAndStoreOpen() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        weak var weakContainer: ModelContainer?
        var context: ModelContext?
        do {
            let container = try fixture.open()
            weakContainer = container
            context = ModelContext(container)
        }
        do {
            let kept = try #require(context)
            kept.insert(Employee(name: "Ann"))
            try kept.save()
            #expect(try kept.fetchCount(FetchDescriptor<Employee>()) == 1)
            #expect(kept.container.url.path == fixture.url.path)
            // The store is still open (locked) while the context lives: a second writer is refused.
            #expect(throws: LogbookError.self) { _ = try fixture.open() }
        }
        context = nil
        // Once the context and container are gone, the store is closed and can be opened again.
        #expect(weakContainer == nil)
        let reopened = try fixture.open()
        #expect(try reopened.mainContext.fetchCount(FetchDescriptor<Employee>()) == 1)
    }

    @Test func droppingContainerAndObjectsClosesTheStore() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var ann: Employee?
        do {
            let container = try fixture.open()
            ann = Employee(name: "Ann")
            container.mainContext.insert(ann!)
            try container.mainContext.save()
        }
        // An object the app still holds does not keep the store open.
        let reopened = try fixture.open()
        #expect(try reopened.mainContext.fetchCount(FetchDescriptor<Employee>()) == 1)
        #expect(ann?.name == "Ann")
        #expect(ann?.modelContext == nil)
    }

    @Test func contextsLetGoOfObjectsTheAppNoLongerHolds() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        for i in 0..<20_000 { context.insert(Employee(name: "E\(i)", salary: Int64(i))) }
        try context.save()
        let reader = ModelContext(container)
        weak var first: Employee?
        var held: [Employee] = []
        for pk in 1...20_000 {
            let id = PersistentIdentifier(entityName: "Employee", primaryKey: UInt64(pk))
            let employee = try #require(try reader.model(for: id, as: Employee.self))
            if pk == 1 { first = employee }
            if pk % 1000 == 0 { held.append(employee) }
        }
        // The first object was let go of by the app and is unchanged: the context released it.
        #expect(first == nil)
        // Objects the app holds stay registered: fetching them again gives the same instance.
        for employee in held {
            let again = try reader.model(
                for: employee.persistentModelID, as: Employee.self)
            #expect(again === employee)
        }
        let registered = String(describing: reader)
        let count = Int(registered.split(separator: "registered: ")[1].prefix { $0.isNumber })!
        #expect(count < 10_000, "\(registered)")
    }

    @Test func changedObjectsStayRegisteredUntilSaved() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        for i in 0..<10_000 { container.mainContext.insert(Employee(name: "E\(i)")) }
        try container.mainContext.save()
        let context = ModelContext(container)
        for pk in 1...10_000 {
            let id = PersistentIdentifier(entityName: "Employee", primaryKey: UInt64(pk))
            let employee = try #require(try context.model(for: id, as: Employee.self))
            if pk % 2 == 0 { employee.salary = Int64(pk) }
        }
        #expect(context.changedModels.count == 5_000)
        try context.save()
        let check = ModelContext(container)
        let saved = try check.fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.salary > 0 }))
        #expect(saved.count == 5_000)
        #expect(saved.allSatisfy { $0.salary == Int64($0.persistentModelID.primaryKey) })
    }
}
