import Foundation
import Logbook
import TestSupport
import Testing

/// What a SwiftData user writes first (issue 14): each spelling works, and nothing a model
/// declares is silently left out of the store.
@MainActor @Suite struct SwiftDataSpellingTests {
    @Test func aPlainStoredPropertyIsRefusedNotDropped() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        #expect {
            _ = try ModelContainer(for: [Draft.self], at: fixture.url)
        } throws: { error in
            guard case LogbookError.invalidSchema(let reason) = error else { return false }
            return reason.contains("Draft.notes") && reason.contains("@Transient")
        }
    }

    @Test func transientPropertiesAreNeitherStoredNorTracked() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try ModelContainer(for: [Card.self], at: fixture.url)
        let context = container.mainContext
        let card = Card()
        card.title = "A"
        card.isSelected = true
        context.insert(card)
        try context.save()
        card.isSelected = false
        #expect(!context.hasChanges)
        #expect(container.schema.entity(named: "Card")?.attributes.map(\.name) == ["title"])
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Card>()).first)
        #expect(fetched.title == "A" && fetched.isSelected == false)
    }

    @Test func aSubclassInsertedAsItsSuperclassKeepsEveryAttribute() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try ModelContainer(for: [Person.self, Manager.self], at: fixture.url)
        let manager = Manager()
        manager.name = "Mia"
        manager.level = 3
        let asPerson: Person = manager
        container.mainContext.insert(asPerson)
        try container.mainContext.save()
        #expect(
            container.schema.entity(named: "Manager")?.attributes.map(\.name) == ["name", "level"])
        let stored = try ModelContext(container).fetch(FetchDescriptor<Manager>())
        #expect(stored.map(\.name) == ["Mia"] && stored.map(\.level) == [3])
        // A Manager is a Person: a fetch of the superclass finds it, as its own class.
        #expect(
            try ModelContext(container).fetch(FetchDescriptor<Person>()).map { $0 is Manager } == [
                true
            ])
    }

    @Test func aRolledBackInsertCanGoIntoAnotherContext() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let first = ModelContext(container)
        let second = ModelContext(container)
        let ann = Employee(name: "Ann")
        first.insert(ann)
        first.rollback()
        #expect(ann.modelContext == nil && !ann.isDeleted && ann.persistentModelID.isTemporary)
        second.insert(ann)
        try second.save()
        #expect(ann.modelContext === second)
        let bob = Employee(name: "Bob")
        first.insert(bob)
        first.delete(bob)
        #expect(bob.modelContext == nil && !bob.isDeleted)
        second.insert(bob)
        try second.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == 2)
        #expect(!first.hasChanges)
        try first.save()
    }

    @Test func modelForAnIdentifierInfersItsType() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        let ann = Employee(name: "Ann")
        context.insert(ann)
        try context.save()
        let id = ann.persistentModelID
        let typed: Employee? = try ModelContext(container).model(for: id)
        #expect(typed?.name == "Ann")
        let any = try ModelContext(container).model(for: id)
        #expect((any as? Employee)?.name == "Ann")
        let company = PersistentIdentifier(entityName: "Company", primaryKey: 1)
        #expect(throws: LogbookError.unknownEntity("Company")) {
            _ = try context.model(for: company, as: Employee.self)
        }
    }

    @Test func everyObjectHasAnIdentifierTemporaryUntilInserted() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        let ann = Employee(name: "Ann")
        let bob = Employee(name: "Bob")
        #expect(ann.persistentModelID.isTemporary && bob.persistentModelID.isTemporary)
        #expect(ann.persistentModelID == ann.persistentModelID)
        #expect(ann.persistentModelID != bob.persistentModelID)
        #expect(ann.persistentModelID.primaryKey == 0)
        #expect(ann.persistentModelID.entityName == "Employee")
        #expect(try context.model(for: ann.persistentModelID, as: Employee.self) == nil)
        #expect(throws: EncodingError.self) { _ = try JSONEncoder().encode(ann.persistentModelID) }

        context.insert(ann)
        let inserted = ann.persistentModelID
        #expect(!inserted.isTemporary && inserted.primaryKey > 0)
        #expect(try context.model(for: inserted, as: Employee.self) === ann)
        try context.save()
        #expect(ann.persistentModelID == inserted)
        let decoded = try JSONDecoder().decode(
            PersistentIdentifier.self, from: JSONEncoder().encode(inserted))
        #expect(decoded == inserted)
        #expect(try ModelContext(container).model(for: decoded, as: Employee.self)?.name == "Ann")
    }

    @Test func deleteModelWhereIsSwiftDatasSpelling() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        for name in ["Ann", "Bob"] { context.insert(Employee(name: name)) }
        try context.save()
        try context.delete(model: Employee.self, where: #Predicate { $0.name == "Ann" })
        try context.delete(model: Employee.self)
        #expect(try context.fetchCount(FetchDescriptor<Employee>()) == 0)
    }

    @Test func anInMemoryStoreRunsOnTheSameEngineAndLeavesNoFile() throws {
        let configuration = ModelConfiguration(isStoredInMemoryOnly: true)
        let container = try ModelContainer(for: Employee.self, configurations: configuration)
        #expect(!FileManager.default.fileExists(atPath: container.url.path))
        let context = container.mainContext
        for i in 0..<1_000 { context.insert(Employee(name: "E\(i)", salary: Int64(i))) }
        try context.save()
        try context.delete(model: Employee.self, where: #Predicate { $0.salary >= 500 })
        try container.store.compact()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == 500)
        // Another in-memory container is another store.
        let other = try ModelContainer(
            for: Employee.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(try other.mainContext.fetchCount(FetchDescriptor<Employee>()) == 0)
        #expect(!FileManager.default.fileExists(atPath: container.url.path))
    }

    @Test func containersTakeTheirModelTypesOneByOne() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try ModelContainer(
            for: Company.self, StaffedEmployee.self, at: fixture.url)
        #expect(container.schema.entities.map(\.name) == ["Company", "StaffedEmployee"])
        let named = try ModelContainer(
            for: Employee.self,
            configurations: ModelConfiguration(
                url: URL(fileURLWithPath: fixture.directory.child("n.logbook"))))
        #expect(named.schema.entities.map(\.name) == ["Employee"])
    }

    @Test func pendingModelsBySwiftDatasNamesAndModelLevelHasChanges() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        let ann = Employee(name: "Ann")
        let bob = Employee(name: "Bob")
        #expect(!ann.hasChanges)
        context.insert(ann)
        context.insert(bob)
        #expect(ann.hasChanges)
        #expect(context.insertedModelsArray.count == 2)
        try context.save()
        #expect(!ann.hasChanges && !bob.hasChanges)
        ann.salary = 5
        context.delete(bob)
        #expect(ann.hasChanges && bob.hasChanges)
        #expect(context.changedModelsArray.count == 1 && context.changedModelsArray[0] === ann)
        #expect(context.deletedModelsArray.count == 1 && context.deletedModelsArray[0] === bob)
        try context.save()
        #expect(!ann.hasChanges && !bob.hasChanges)
    }

    @Test func enumerateVisitsEveryMatchInOrderABatchAtATime() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        for i in 0..<12_000 { context.insert(Employee(name: "E\(i)", salary: Int64(i % 1_000))) }
        try context.save()
        let reader = ModelContext(container)
        reader.insert(Employee(name: "pending", salary: 5_000))
        var salaries: [Int64] = []
        weak var early: Employee?
        try reader.enumerate(
            FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.salary, order: .reverse)]),
            batchSize: 1_000
        ) { employee in
            if salaries.isEmpty { early = employee }
            salaries.append(employee.salary)
        }
        #expect(salaries.count == 12_001)
        #expect(salaries.first == 5_000)
        #expect(salaries == salaries.sorted(by: >))
        // The pending insert stays registered; objects of passed batches were let go of.
        #expect(early != nil)
        var names: [String] = []
        try reader.enumerate(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.salary == 7 }), batchSize: 5
        ) { names.append($0.name) }
        #expect(names == (0..<12).map { "E\($0 * 1_000 + 7)" })
    }

    @Test func fetchWithABatchSizeIsALazyCollection() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = container.mainContext
        for i in 0..<3_000 { context.insert(Employee(name: "E\(i)", salary: Int64(i))) }
        try context.save()
        let reader = ModelContext(container)
        let results = try reader.fetch(
            FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.salary, order: .reverse)]),
            batchSize: 100)
        #expect(results.count == 3_000)
        #expect(results[0].salary == 2_999 && results[2_999].salary == 0)
        #expect(results[1_234] === results[1_234])
        // Another context deletes one: reaching it gives a deleted object, not a crash.
        try container.mainContext.delete(
            model: Employee.self, where: #Predicate { $0.salary == 1_000 })
        let gone = results[1_999]
        #expect(gone.isDeleted)
        #expect(Array(results.prefix(3)).map(\.salary) == [2_999, 2_998, 2_997])
    }
}

final class Draft: PersistentModel {
    @Attribute var title = ""
    var notes = ""
    init() {}
}

final class Card: PersistentModel {
    @Attribute var title = ""
    @Transient var isSelected = false
    init() {}
}

class Person: PersistentModel {
    @Attribute var name = ""
    required init() {}
}

final class Manager: Person {
    @Attribute var level: Int64 = 0
    required init() {}
}
