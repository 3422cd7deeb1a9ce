import Foundation
import Logbook
import TestSupport
import Testing

/// The by-name fetch, `enumerate` and the batched fetch read a base entity's sub-entities, as
/// the typed fetch does.
@MainActor @Suite struct HierarchyFetchTests {
    /// Rex and Tripod (dogs), Tom (a cat) and Ant (an animal), saved.
    private func zooContainer(_ fixture: LogbookFixture) throws -> ModelContainer {
        let container = try fixture.open([Animal.self, Dog.self, Cat.self])
        let context = container.mainContext
        for (name, legs) in [("Rex", 4), ("Tripod", 3)] {
            let dog = Dog()
            dog.name = name
            dog.legs = Int64(legs)
            context.insert(dog)
        }
        let cat = Cat()
        cat.name = "Tom"
        context.insert(cat)
        let animal = Animal()
        animal.name = "Ant"
        animal.legs = 6
        context.insert(animal)
        try context.save()
        return container
    }

    private func names(_ objects: [any ModelObject]) throws -> [String] {
        try objects.map { try $0.value(forKey: "name") as? String ?? "?" }
    }

    @Test func theFetchByNameReturnsSubEntityObjects() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try zooContainer(fixture)
        for context in [container.mainContext, ModelContext(container)] {
            let all = try context.fetch(entity: "Animal", sortBy: "name")
            #expect(try names(all) == ["Ant", "Rex", "Tom", "Tripod"])
            #expect(all.map(\.persistentModelID.entityName) == ["Animal", "Dog", "Cat", "Dog"])
            #expect(all[1] is Dog && all[2] is Cat)
            let few = try context.fetch(
                entity: "Animal", where: "legs < %@", 5, sortBy: "legs", ascending: false)
            #expect(
                try names(few) == ["Rex", "Tom", "Tripod"]
                    || names(few) == ["Tom", "Rex", "Tripod"])
            #expect(try names(context.fetch(entity: "Dog", sortBy: "name")) == ["Rex", "Tripod"])
            var page = EntityFetchDescriptor(entityName: "Animal", sortBy: [("name", true)])
            page.fetchOffset = 1
            page.fetchLimit = 2
            #expect(try names(context.fetch(page)) == ["Rex", "Tom"])
            #expect(try context.fetchCount(page) == 2)
            #expect(try context.fetchCount(EntityFetchDescriptor(entityName: "Animal")) == 4)
            #expect(
                try context.fetchIdentifiers(page).map(\.entityName) == ["Dog", "Cat"])
        }
    }

    @Test func theFetchByNameSeesPendingSubEntityObjects() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try zooContainer(fixture)
        let context = container.mainContext
        let dog = Dog()
        dog.name = "Bo"
        context.insert(dog)
        #expect(try names(context.fetch(entity: "Animal", sortBy: "name")).first == "Ant")
        #expect(try names(context.fetch(entity: "Animal", where: "name == %@", "Bo")) == ["Bo"])
    }

    @Test func theFetchByNameWithoutTheClassesReadsTheHierarchy() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        _ = try zooContainer(fixture)
        let dynamic = try ModelContainer(schema: nil, at: fixture.url)
        let all = try ModelContext(dynamic).fetch(entity: "Animal", sortBy: "name")
        #expect(try names(all) == ["Ant", "Rex", "Tom", "Tripod"])
        #expect(all.map(\.persistentModelID.entityName) == ["Animal", "Dog", "Cat", "Dog"])
    }

    @Test func enumerateReturnsSubclassObjects() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try zooContainer(fixture)
        let context = ModelContext(container)
        var seen: [String] = []
        try context.enumerate(
            FetchDescriptor<Animal>(sortBy: [SortDescriptor(\.name)]), batchSize: 2
        ) { seen.append("\($0.name):\(type(of: $0))") }
        #expect(seen == ["Ant:Animal", "Rex:Dog", "Tom:Cat", "Tripod:Dog"])
        var unsorted: [String] = []
        try context.enumerate(FetchDescriptor<Animal>(), batchSize: 1) {
            unsorted.append($0.name)
        }
        #expect(unsorted.sorted() == ["Ant", "Rex", "Tom", "Tripod"])
        var four: [String] = []
        try context.enumerate(
            FetchDescriptor<Animal>(predicate: #Predicate { $0.legs == 4 }), batchSize: 3
        ) { four.append($0.name) }
        #expect(four.sorted() == ["Rex", "Tom"])
    }

    @Test func theBatchedFetchReturnsSubclassObjects() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try zooContainer(fixture)
        let context = ModelContext(container)
        let results = try context.fetch(
            FetchDescriptor<Animal>(sortBy: [SortDescriptor(\.name, order: .reverse)]),
            batchSize: 2)
        #expect(results.count == 4)
        #expect(results.map(\.name) == ["Tripod", "Tom", "Rex", "Ant"])
        #expect(results[0] is Dog && results[1] is Cat && !(results[3] is Dog))
        let unsorted = try context.fetch(FetchDescriptor<Animal>(), batchSize: 3)
        #expect(unsorted.map(\.name).sorted() == ["Ant", "Rex", "Tom", "Tripod"])
    }
}
