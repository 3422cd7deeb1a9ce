import Foundation
import Logbook
import Testing

/// The Core Data format subset, standalone on dictionaries (as the CLI's `--where` uses it).
@Suite struct StringPredicateTests {
    static let ann: [String: AttributeValue] = [
        "name": .string("Ann Élise"), "salary": .integer(2_000_000), "rate": .double(1.5),
        "active": .bool(true),
        "nickname": .null, "designation": .string("Engineer"),
    ]

    private func holds(_ format: String, _ arguments: Any?...) throws -> Bool {
        try StringPredicate(format: format, arguments: arguments).evaluate(Self.ann)
    }

    @Test(arguments: [
        ("salary == 2000000", true), ("salary = 2000000", true), ("salary != 2000000", false),
        ("salary <> 1", true),
        ("salary < 2000001", true), ("salary <= 2000000", true), ("salary =< 1999999", false),
        ("salary > 1999999", true), ("salary >= 2000001", false), ("salary => 2000000", true),
        ("rate > 1", true), ("rate == 1.5", true), ("salary > 1.5e6", true), ("salary > -3", true),
        ("active == TRUE", true), ("active == NO", false), ("active = YES", true),
        ("nickname == nil", true), ("nickname = NULL", true), ("nickname != nil", false),
        ("name != nil", true),
        ("nickname < 3", false),
    ])
    func comparisons(_ format: String, _ expected: Bool) throws {
        #expect(try holds(format) == expected, "\(format)")
    }

    @Test(arguments: [
        ("name BEGINSWITH 'Ann'", true), ("name BEGINSWITH 'ann'", false),
        ("name BEGINSWITH[c] 'ann'", true),
        ("name ENDSWITH \"Élise\"", true), ("name ENDSWITH[cd] 'elise'", true),
        ("name ENDSWITH[c] 'elise'", false),
        ("name CONTAINS 'n É'", true), ("name CONTAINS[c] 'N é'", true),
        ("name CONTAINS 'x'", false),
        ("designation ==[c] 'engineer'", true), ("nickname CONTAINS 'a'", false),
    ])
    func stringOperators(_ format: String, _ expected: Bool) throws {
        #expect(try holds(format) == expected, "\(format)")
    }

    @Test func logicalOperatorsAndParentheses() throws {
        #expect(try holds("salary > 1 AND designation == 'Engineer'"))
        #expect(try holds("salary > 1 && designation == 'Engineer'"))
        #expect(try !holds("salary < 1 AND designation == 'Engineer'"))
        #expect(try holds("salary < 1 OR designation == 'Engineer'"))
        #expect(try holds("salary < 1 || designation == 'Engineer'"))
        #expect(try holds("NOT salary < 1"))
        #expect(try holds("!(salary < 1)"))
        #expect(try !holds("not (salary > 1 and active == true)"))
        #expect(
            try holds("salary < 1 AND active == false OR rate == 1.5"), "AND binds tighter than OR")
        #expect(try !holds("salary < 1 AND (active == false OR rate == 1.5)"))
        #expect(try holds("TRUEPREDICATE"))
        #expect(try !holds("FALSEPREDICATE"))
    }

    @Test func inAndBetween() throws {
        #expect(try holds("designation IN {'Manager', 'Engineer'}"))
        #expect(try !holds("designation IN {'Manager'}"))
        #expect(try holds("designation IN %@", ["Engineer", "Designer"]))
        #expect(try holds("designation IN[c] {'engineer'}"))
        #expect(try holds("salary IN {1, 2000000}"))
        #expect(try holds("salary BETWEEN {1000000, 3000000}"))
        #expect(try holds("salary BETWEEN {2000000, 2000000}"))
        #expect(try !holds("salary BETWEEN {1, 10}"))
        #expect(try holds("salary BETWEEN %@", [1, 2_000_000]))
    }

    @Test func arguments() throws {
        #expect(try holds("salary > %@", 5))
        #expect(try holds("salary > %d", 5))
        #expect(try holds("designation == %@", "Engineer"))
        #expect(try holds("%K == %@", "designation", "Engineer"))
        #expect(try holds("nickname == %@", nil as String?))
        #expect(try holds("rate < %@ AND salary > %d", 2.0, 10))
        #expect(try holds("self.salary > 1"))
    }

    @Test func parseErrorsPointAtTheColumn() throws {
        func error(_ format: String, _ arguments: Any?...) -> LogbookError? {
            do {
                _ = try StringPredicate(format: format, arguments: arguments)
                return nil
            } catch let error as LogbookError {
                return error
            } catch {
                return nil
            }
        }
        func column(_ e: LogbookError?) -> Int? {
            if case .predicateSyntax(_, _, let column) = e { return column }
            return nil
        }
        #expect(column(error("salary >")) == 9)
        #expect(column(error("salary 5")) == 8)
        #expect(column(error("salary > 5 AND")) == 15)
        #expect(column(error("(salary > 5")) == 12)
        #expect(column(error("name == 'Ann")) == 9)
        #expect(column(error("salary > %@")) == 10)
        #expect(column(error("salary ~ 3")) == 8)
        #expect(column(error("name LIKE 'A*'")) == 6)
        #expect(column(error("name ==[x] 'a'")) == 8)
        #expect(column(error("salary > 5 )")) == 12)
        #expect(column(error("salary BETWEEN {1}")) == 8)
        if case .predicateSyntax(_, let line, let col) = error("salary > 1 AND\n  name ==") {
            #expect(line == 2 && col == 10)
        } else {
            Issue.record("expected a syntax error")
        }
        let message = error("salary >")?.description ?? ""
        #expect(message.contains("column 9"))
    }

    @Test func evaluationErrorsDoNotTrap() throws {
        #expect(throws: LogbookError.self) { try holds("height > 3") }
        #expect(throws: LogbookError.self) { try holds("name > 3") }
        #expect(throws: LogbookError.self) { try holds("salary CONTAINS 'x'") }
        #expect(throws: LogbookError.self) { try holds("designation == {1, 2}") }
    }

    @Test func validateChecksKeysAgainstAnEntity() throws {
        let entity = Entity(
            name: "Employee", attributes: [AttributeDescription("salary", .integer)])
        try StringPredicate("salary > 3").validate(for: entity)
        #expect(throws: LogbookError.unknownAttribute(entity: "Employee", attribute: "height")) {
            try StringPredicate("height > 3").validate(for: entity)
        }
        #expect(throws: LogbookError.self) {
            try StringPredicate("company.name == 'x'").validate(for: entity)
        }
    }
}
