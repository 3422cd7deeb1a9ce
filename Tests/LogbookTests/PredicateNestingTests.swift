import Foundation
import Logbook
import TestSupport
import Testing

/// String predicates nested past ``100`` are refused with a syntax
/// error that points at where the limit is crossed, on every path that nests (issue 40: `NOT`
/// × 10,000 overflowed the stack, and so did `{` × 10,000 in the `objects` fuzz target).
@Suite struct PredicateNestingTests {
    private static let values: [String: AttributeValue] = [
        "name": .string("Ann"), "salary": .integer(5),
    ]
    private static let limit = StringPredicate.maximumDepth

    /// The message and column of the syntax error `text` gives, or `nil` if it parses.
    private func refusal(_ text: String) -> (message: String, column: Int)? {
        do {
            _ = try StringPredicate(format: text, arguments: [])
            return nil
        } catch LogbookError.predicateSyntax(let message, _, let column) {
            return (message, column)
        } catch {
            Issue.record("not a syntax error: \(error)")
            return nil
        }
    }

    private func holds(_ text: String) throws -> Bool {
        try StringPredicate(format: text, arguments: []).evaluate(Self.values)
    }

    /// The reproducer of the issue, through the library.
    @Test func tenThousandNotsAreRefusedAtTheFirstPastTheLimit() throws {
        let refused = try #require(refusal(String(repeating: "NOT ", count: 10_000) + "salary > 1"))
        #expect(refused.message.contains("nests more than \(Self.limit) levels"))
        // NOT × (limit − 1) and the comparison make the limit; the next NOT crosses it.
        #expect(refused.column == 4 * (Self.limit - 1) + 1)
        let bangs = try #require(refusal(String(repeating: "!", count: 10_000) + "salary > 1"))
        #expect(bangs.column == Self.limit)
    }

    @Test func notsUpToTheLimitParse() throws {
        let most = String(repeating: "NOT ", count: Self.limit - 1) + "salary > 1"
        #expect(try holds(most) == (Self.limit - 1).isMultiple(of: 2))
        #expect(refusal("NOT " + most) != nil)
    }

    @Test func tenThousandParenthesesAreRefused() throws {
        let text =
            String(repeating: "(", count: 10_000) + "salary > 1"
            + String(repeating: ")", count: 10_000)
        let refused = try #require(refusal(text))
        #expect(refused.message.contains("nests more than"))
        #expect(refused.column == Self.limit)
        let most =
            String(repeating: "(", count: Self.limit - 1) + "salary > 1"
            + String(repeating: ")", count: Self.limit - 1)
        #expect(try holds(most))
    }

    /// The `objects` fuzz target's finding: a list in a list is refused before it is parsed.
    @Test func nestedListsAreRefusedAtTheInnerBrace() throws {
        let text =
            "salary IN " + String(repeating: "{", count: 10_000) + "1"
            + String(repeating: "}", count: 10_000)
        let refused = try #require(refusal(text))
        #expect(refused.message.contains("constants only"))
        #expect(refused.column == 12)
        #expect(refusal("salary IN {1, {2}}")?.column == 15)
        #expect(try holds("salary IN {1, 5}"))
    }

    /// Long chains are balanced trees: they parse, evaluate in order, and walk the tree on a
    /// small stack. 10,000 terms (100,000 in the long tier): a tree one frame a term would
    /// need MiBs of stack, not 256 KiB.
    @Test(arguments: ["AND", "OR", "&&", "||"])
    func longChainsEvaluateOnASmallStack(_ join: String) throws {
        let isAnd = join == "AND" || join == "&&"
        let count = TestTier.pick(quick: 10_000, long: 100_000)
        var terms = Array(repeating: isAnd ? "salary > 1" : "salary < 1", count: count)
        let all = try StringPredicate(format: terms.joined(separator: " \(join) "), arguments: [])
        terms[count * 7 / 9] = isAnd ? "salary < 1" : "salary > 1"
        let flipped = try StringPredicate(
            format: terms.joined(separator: " \(join) "), arguments: [])
        let results = Locked<[Bool]>([])
        let thread = Thread {
            let answers = [all, flipped].map { (try? $0.evaluate(Self.values)) ?? !isAnd }
            results.withLock { $0 = answers }
        }
        thread.stackSize = 256 << 10
        thread.start()
        while results.withLock({ $0.isEmpty }) { usleep(1_000) }
        #expect(results.withLock { $0 } == [isAnd, !isAnd])
    }

    /// The deepest predicate allowed parses, binds and evaluates on a secondary thread's usual
    /// stack (512 KiB on macOS), in a debug build as well.
    @Test func theDeepestAllowedPredicateFitsA512KiBStack() throws {
        let half = (Self.limit - 1) / 2
        let text =
            String(repeating: "NOT (", count: half) + "salary > 1 AND name == 'Ann'"
            + String(repeating: ")", count: half)
        let entity = Entity(
            name: "Employee",
            attributes: [
                AttributeDescription("name", .string), AttributeDescription("salary", .integer),
            ])
        let results = Locked<[Bool]>([])
        let thread = Thread {
            let predicate = try? StringPredicate(format: text, arguments: [])
            let valid = (try? predicate?.validate(for: entity)) != nil
            let holds = (try? predicate?.evaluate(Self.values)) ?? nil
            results.withLock { $0 = [predicate != nil, valid, holds == half.isMultiple(of: 2)] }
        }
        thread.stackSize = 512 << 10
        thread.start()
        while results.withLock({ $0.isEmpty }) { usleep(1_000) }
        #expect(results.withLock { $0 } == [true, true, true])
        #expect(refusal("NOT " + text) != nil)
    }

    /// An error in a later term of a chain is met only if the earlier ones do not decide it,
    /// as in the left-leaning tree the grammar describes.
    @Test func aBalancedChainStopsAtTheSameTermAsALeftLeaningOne() throws {
        #expect(try !holds("salary < 1 AND a > 1 AND b > 1 AND c > 1"))
        #expect(try holds("salary > 1 OR a > 1 OR b > 1 OR c > 1"))
        #expect(throws: LogbookError.self) {
            try holds("salary > 1 AND salary > 2 AND missing > 1 AND salary > 3")
        }
    }

    /// Depth that grows through parentheses and AND together, with fewer than the limit open
    /// at any point: refused when the tree is built.
    @Test func depthFromParenthesesAndAndTogetherIsRefused() throws {
        var text = "salary > 1"
        for _ in 0..<(Self.limit / 2 + 5) { text = "(\(text)) AND salary > 1" }
        let refused = try #require(refusal(text))
        #expect(refused.message.contains("nests more than"))
        text = "salary > 1"
        for _ in 0..<(Self.limit / 2 - 1) { text = "(\(text)) AND salary > 1" }
        #expect(try holds(text))
    }

    /// Each `.` of a key path is a relationship followed, which binding nests.
    @Test func keyPathsDeeperThanTheLimitAreRefused() throws {
        let deep = String(repeating: "manager.", count: 10_000) + "name == 'x'"
        let refused = try #require(refusal(deep))
        #expect(refused.column == 1)
        let right = "'x' == " + String(repeating: "manager.", count: 200) + "name"
        #expect(refusal(right)?.column == 8)
        #expect(
            refusal(String(repeating: "manager.", count: Self.limit - 1) + "name == 'x'") == nil)
        // Through %K as well.
        #expect(throws: LogbookError.self) {
            try StringPredicate(
                format: "%K == 1", arguments: [String(repeating: "a.", count: 500) + "b"])
        }
    }

    /// Through a context: the fetch throws the syntax error, nothing crashes.
    @Test func aDeepPredicateFetchThrows() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = ModelContext(container)
        context.insert(Employee(name: "Ann", salary: 5))
        try context.save()
        #expect(throws: LogbookError.self) {
            try context.fetch(
                entity: "Employee", where: String(repeating: "NOT ", count: 10_000) + "salary > 1")
        }
        #expect(
            try context.fetch(
                entity: "Employee", where: String(repeating: "NOT ", count: 10) + "salary > 1"
            ).count == 1)
    }
}
