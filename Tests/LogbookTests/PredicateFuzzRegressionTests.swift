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

    /// `crash-nan-sorted-apart-from-the-index`: sorted by a double attribute holding NaN, the
    /// index gave its order (NaN after +infinity) and the sort step of an unindexed store an
    /// arbitrary one (`<` is no order with a NaN). Both now order as the index does.
    @Test(arguments: [false, true])
    func aSortByADoubleHoldingNaNIsTheIndexOrder(_ indexed: Bool) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let schema = Schema([
            Entity(
                name: "Reading",
                attributes: [AttributeDescription("value", .double, indexed: indexed)])
        ])
        let context = ModelContext(try fixture.open(schema: schema))
        let values: [Double] = [.nan, 1, -.infinity, .infinity, -0.0, .nan, -2.5, 0, 1e300]
        for value in values { _ = try context.insert(entity: "Reading", values: ["value": value]) }
        try context.save()
        func sorted(limit: Int?) throws -> [Int] {
            var descriptor = EntityFetchDescriptor(
                entityName: "Reading", sortBy: [("value", true)])
            descriptor.fetchLimit = limit
            return try context.fetch(descriptor).map { Int($0.persistentModelID.primaryKey) }
        }
        // -inf, -2.5, -0 and 0 (same: by id), 1, 1e300, +inf, NaN and NaN (by id).
        #expect(try sorted(limit: nil) == [3, 7, 5, 8, 2, 9, 4, 1, 6])
        #expect(try sorted(limit: 5) == [3, 7, 5, 8, 2])
        #expect(AttributeValue.compare(.double(.nan), .double(.infinity)) == .orderedDescending)
        #expect(AttributeValue.compare(.double(1), .double(.nan)) == .orderedAscending)
        #expect(AttributeValue.compare(.double(.nan), .double(.nan)) == .orderedSame)
    }

    /// `crash-list-compared-without-in`: `!salary <= %@ AND designation == 'Enginer'`, with an
    /// array for `%@`, threw when `salary <= [1, 5, -1]` was evaluated and found nothing when the
    /// index on `designation` left no object to evaluate it on. A list anywhere but right of
    /// `IN` is now refused when the predicate is bound.
    @Test(arguments: [false, true])
    func aListOutsideInIsAnErrorWhateverThePlan(_ indexed: Bool) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = try context(indexed: indexed, fixture)
        #expect(
            throws: LogbookError.predicateSyntax(
                message: "a list {…} is only allowed after IN or BETWEEN", line: 1, column: 11)
        ) {
            try context.fetch(entity: "Person", where: "salary <= %@ AND name == 'zzz'", [1, 5])
        }
        #expect(throws: LogbookError.self) {
            try context.fetch(entity: "Person", where: "{1, 2} == salary AND name == 'zzz'")
        }
        #expect(try context.fetch(entity: "Person", where: "salary IN %@", [1, 5]).count == 1)
    }

    /// `crash-in-without-a-list`: `designation IN designation AND salary BETWEEN {5, 000}` threw
    /// ("IN needs a list on its right") when an object was evaluated, and found nothing when the
    /// indexes left no object to evaluate it on. `IN` with anything on its right that cannot be
    /// a list (an attribute that is not an array or set, a to-one relationship, a constant) is
    /// now refused when the predicate is bound, pointing at its right side.
    @Test(arguments: [false, true])
    func inWithoutAListIsAnErrorWhateverThePlan(_ indexed: Bool) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = try context(indexed: indexed, fixture)
        let message = "IN needs a list on its right, such as {1, 2} or %@ with an array"
        #expect(throws: LogbookError.predicateSyntax(message: message, line: 1, column: 9)) {
            try context.fetch(entity: "Person", where: "name IN name AND name == 'zzz'")
        }
        #expect(throws: LogbookError.predicateSyntax(message: message, line: 1, column: 9)) {
            try context.fetch(entity: "Person", where: "name IN %K AND name == 'zzz'", "name")
        }
        #expect(throws: LogbookError.predicateSyntax(message: message, line: 1, column: 9)) {
            try context.fetch(entity: "Person", where: "name IN salary AND name == 'zzz'")
        }
        // Refused by the parser.
        #expect(throws: LogbookError.self) {
            try context.fetch(entity: "Person", where: "salary IN 5 AND name == 'zzz'")
        }
        #expect(try context.fetch(entity: "Person", where: "salary IN {2, 3}").count == 1)
        #expect(try context.fetch(entity: "Person", where: "name IN %@", ["Bo", "Cy"]).count == 1)
    }

    /// Seen while fixing `crash-in-without-a-list`: two keys of types that do not compare gave
    /// either key's error, at either key, by the order of a dictionary (which differs between
    /// two stores in one process). It is now the left key's, at the right one, in every store.
    @Test(arguments: [false, true])
    func twoKeysThatDoNotCompareGiveOneErrorWhateverTheStore(_ indexed: Bool) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = try context(indexed: indexed, fixture)
        let message = "name (String) cannot be compared with salary (Int64)"
        for _ in 0..<8 {
            #expect(throws: LogbookError.predicateSyntax(message: message, line: 1, column: 9)) {
                try context.fetch(entity: "Person", where: "name == salary AND name == 'zzz'")
            }
        }
    }
}
