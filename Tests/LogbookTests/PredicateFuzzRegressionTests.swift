import Foundation
import Logbook
import TestSupport
import Testing

/// Findings of the `predicates` fuzz target (Tests/Fuzz/corpus/predicates/crash-*), each a case
/// where an indexed and an unindexed store answered the same string predicate differently.
@Suite struct PredicateFuzzRegressionTests {
    /// Employees Ann and Bo in a store where `name` is indexed, or not.
    private func context(indexed: Bool, _ fixture: LogbookFixture) throws -> ModelContext {
        let schema = Schema([
            Entity(
                name: "Person",
                attributes: [
                    AttributeDescription("name", .string, indexed: indexed),
                    AttributeDescription("salary", .integer),
                ])
        ])
        let container = try fixture.open(schema: schema)
        let context = ModelContext(container)
        for (name, salary) in [("Ann", 1), ("Bo", 2)] {
            _ = try context.insert(entity: "Person", values: ["name": name, "salary": salary])
        }
        try context.save()
        return context
    }

    /// `crash-constant-comparison-skipped-by-index`: `90233 < 'B' AND name >= 'ó…'` threw when
    /// every object was evaluated, and found nothing when the index on `name` left no object to
    /// evaluate. A comparison of constants is now decided when the predicate is bound: the same
    /// error either way, pointing at it.
    @Test(arguments: [false, true])
    func aComparisonOfConstantsThatCannotBeMadeIsAnErrorWhateverThePlan(_ indexed: Bool) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = try context(indexed: indexed, fixture)
        #expect(
            throws: LogbookError.predicateSyntax(
                message: "cannot order Int64 against String (90233 and \"B\")", line: 1, column: 1)
        ) {
            try context.fetch(entity: "Person", where: "90233 < 'B' AND name >= 'zzz'")
        }
        #expect(try context.fetch(entity: "Person", where: "1 < 2 AND name >= 'B'").count == 1)
        #expect(try context.fetch(entity: "Person", where: "1 > 2 OR name == 'Ann'").count == 1)
        #expect(try context.fetch(entity: "Person", where: "'a' IN {'a', 'b'}").count == 2)
    }
}
