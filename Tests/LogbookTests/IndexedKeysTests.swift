import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// ``ModelContext/primaryKeysFromIndexes(_:)``: the keys a fetch finds, read from the indexes
/// alone when they answer the predicate exactly, and `nil` otherwise.
@MainActor @Suite struct IndexedKeysTests {
    @Test func theIndexesGiveTheKeysAFetchFinds() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Employee.self])
        let context = container.mainContext
        var rng = SeededGenerator(seed: testSeed("theIndexesGiveTheKeysAFetchFinds"))
        let designations = ["Engineer", "Manager", "Designer", "Analyst"]
        for i in 0..<2_000 {
            context.insert(
                Employee(
                    name: "E\(i)", designation: designations.randomElement(using: &rng)!,
                    salary: Int64.random(in: 0..<1000, using: &rng)))
        }
        try context.save()
        // Some updates and deletes, so that the index is not in insertion order.
        let all = try context.fetch(FetchDescriptor<Employee>())
        for employee in all.shuffled(using: &rng).prefix(300) {
            employee.designation = designations.randomElement(using: &rng)!
        }
        for employee in all.shuffled(using: &rng).prefix(100) { context.delete(employee) }
        try context.save()
        let reader = ModelContext(container)
        // Whenever a count reads no record, the indexes give the keys, those the fetch finds.
        var answered = 0
        for format in [
            "designation == 'Engineer'", "designation IN {'Engineer', 'Analyst'}",
            "designation BEGINSWITH 'Ma'", "designation > 'Designer'", "designation == 'Nobody'",
            "designation == 'Engineer' OR designation == 'Manager'", "designation <= 'Analyst'",
        ] {
            let descriptor = EntityFetchDescriptor(
                entityName: "Employee", predicate: try StringPredicate(format))
            let counted = try reader.explain(descriptor, counting: true)
            let found = try reader.primaryKeysFromIndexes(descriptor)
            #expect(
                (found != nil) == (counted.access != .scan && counted.recordsRead == 0), "\(format)"
            )
            guard let found else { continue }
            answered += 1
            let expected = try reader.fetchIdentifiers(descriptor).map(\.primaryKey).sorted()
            #expect(found.keys == expected, "\(format)")
            #expect(found.explanation.recordsRead == 0)
            #expect(found.explanation.results == expected.count)
            #expect(found.explanation.description.hasPrefix(counted.description.prefix(5)))
        }
        #expect(answered >= 3)
        // Not answered by an index alone: nil, and the caller fetches.
        for format in [
            "salary > 500", "designation == 'Engineer' AND salary > 500", "name == 'E1'",
        ] {
            let descriptor = EntityFetchDescriptor(
                entityName: "Employee", predicate: try StringPredicate(format))
            #expect(try reader.primaryKeysFromIndexes(descriptor) == nil, "\(format)")
        }
        #expect(
            try reader.primaryKeysFromIndexes(EntityFetchDescriptor(entityName: "Employee")) == nil)
        // Unsaved changes count in a fetch, not in the indexes: nil.
        reader.insert(Employee(name: "new", designation: "Engineer"))
        let engineers = EntityFetchDescriptor(
            entityName: "Employee", predicate: try StringPredicate("designation == 'Engineer'"))
        #expect(try reader.primaryKeysFromIndexes(engineers) == nil)
    }
}
