import Foundation
import Logbook
import TestSupport
import Testing

/// A sorted fetch without a limit builds its objects in result order from the records it kept
/// (so they lie in memory in the order the app reads them): the result is the one a model of
/// the data gives, with the context's registered objects (their unsaved values) and unsaved
/// inserts in their places, and every object registered once.
@Suite struct SortedFetchBuildTests {
    @Test(arguments: [false, true])
    func aSortedFetchMixesStoredRegisteredAndPendingObjects(indexed: Bool) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        var rng = SystemRandomNumberGenerator()
        var model: [String: (designation: String, salary: Int64)] = [:]
        do {
            let context = ModelContext(container)
            for i in 0..<3_000 {
                let designation = ["Engineer", "Manager", "Analyst"][i % 3]
                let salary = Int64.random(in: 0..<500, using: &rng)
                context.insert(Employee(name: "e\(i)", designation: designation, salary: salary))
                model["e\(i)"] = (designation, salary)
            }
            try context.save()
        }
        let context = ModelContext(container)
        // Registered before the fetch, one of them changed and not saved.
        let held = try context.fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "e3" || $0.name == "e6" }))
        let changed = try #require(held.first { $0.name == "e3" })
        changed.salary = 10_000
        model["e3"]?.salary = 10_000
        // Unsaved inserts: one that matches, one that does not.
        context.insert(Employee(name: "new", designation: "Engineer", salary: -1))
        context.insert(Employee(name: "other", designation: "Manager", salary: -2))
        model["new"] = ("Engineer", -1)
        model["other"] = ("Manager", -2)

        let wanted = "Engineer"
        let descriptor = FetchDescriptor<Employee>(
            predicate: indexed
                ? #Predicate { $0.designation == wanted }
                : #Predicate {
                    $0.designation == wanted && $0.salary > -1_000
                },
            sortBy: [SortDescriptor(\.salary), SortDescriptor(\.name)])
        let found = try context.fetch(descriptor)
        let expected = model.filter { $0.value.designation == "Engineer" }
            .sorted { ($0.value.salary, $0.key) < ($1.value.salary, $1.key) }.map(\.key)
        #expect(found.map(\.name) == expected)
        #expect(found.contains { $0 === changed })
        #expect(found.first?.name == "new" && found.last === changed)
        // Fetching again gives the same instances.
        let again = try context.fetch(descriptor)
        #expect(zip(found, again).allSatisfy { $0 === $1 })
        #expect(try context.fetchCount(descriptor) == expected.count)
    }

    /// A fetch sorted by an indexed attribute reads the index in its order, so its objects are
    /// built as the read meets them; with an unsaved insert to merge, they are built from kept
    /// bytes after the sort. Both give the model's order (ties by insertion, the primary key).
    @Test(arguments: [false, true])
    func aFetchInIndexOrderGivesTheModelsOrder(withPendingInsert: Bool) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        var names: [(designation: String, order: Int, name: String)] = []
        do {
            let context = ModelContext(container)
            for i in 0..<2_000 {
                let designation = ["Engineer", "Manager", "Analyst", "Designer"][(i * 7) % 4]
                context.insert(Employee(name: "e\(i)", designation: designation, salary: 0))
                names.append((designation, i, "e\(i)"))
            }
            try context.save()
        }
        let context = ModelContext(container)
        if withPendingInsert {
            context.insert(Employee(name: "new", designation: "Director", salary: 0))
            names.append(("Director", Int.max, "new"))
        }
        let low = "B"
        let descriptor = FetchDescriptor<Employee>(
            predicate: #Predicate { $0.designation >= low },
            sortBy: [SortDescriptor(\.designation)])
        let found = try context.fetch(descriptor)
        let expected = names.filter { $0.designation >= low }
            .sorted { ($0.designation, $0.order) < ($1.designation, $1.order) }.map(\.name)
        #expect(found.map(\.name) == expected)
        #expect(try context.fetch(descriptor).elementsEqual(found) { $0 === $1 })
    }
}
