import Foundation
import Logbook
import TestSupport
import Testing

/// Aggregates as an app uses them: totals and means per group, through a relationship,
/// `having`, ordering and limits, the shortcuts, the dynamic API, overflow, and answers that
/// come from an index without reading records.
@MainActor @Suite struct AggregateTests {
    private func staff(_ context: ModelContext) throws {
        let acme = Firm()
        acme.name = "Acme"
        let globex = Firm()
        globex.name = "Globex"
        context.insert(acme)
        context.insert(globex)
        let rows: [(String, String, Int64, Firm?)] = [
            ("Ann", "Engineer", 2_000_000, acme), ("Bob", "Engineer", 1_000_000, globex),
            ("Cid", "Manager", 3_000_000, acme), ("Dee", "Clerk", 500_000, nil),
            ("Eve", "Engineer", 1_500_000, acme),
        ]
        for (name, designation, salary, firm) in rows {
            let worker = Worker()
            worker.name = name
            worker.designation = designation
            worker.salary = salary
            worker.rating = Double(salary) / 1_000_000
            worker.firm = firm
            context.insert(worker)
        }
        try context.save()
    }

    @Test func totalsAndMeansPerGroup() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try fixture.open([Worker.self, Firm.self]))
        try staff(context)
        let rows = try context.aggregate(
            AggregateDescriptor<Worker>(
                groupBy: [\.designation],
                computing: [.sum(\.salary), .average(\.salary), .maximum(\.rating)]))
        #expect(rows.map { $0[\Worker.designation] } == ["Clerk", "Engineer", "Manager"])
        #expect(rows.map(\.count) == [1, 3, 1])
        #expect(rows.map { $0.sum(\Worker.salary) } == [500_000, 4_500_000, 3_000_000])
        #expect(rows.map { $0.average(\Worker.salary) } == [500_000, 1_500_000, 3_000_000])
        #expect(rows[1].maximum(\Worker.rating) == 2.0)
        #expect(rows[1][column: "sum_salary"] == .integer(4_500_000))
        #expect(
            rows[1].columnNames == [
                "designation", "count", "sum_salary", "avg_salary", "max_rating",
            ])
    }

    @Test func groupsThroughARelationshipHavingOrderAndLimit() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try fixture.open([Worker.self, Firm.self]))
        try staff(context)
        var descriptor = AggregateDescriptor<Worker>(
            groupBy: [\.firm?.name], computing: [.sum(\.salary)],
            sortBy: [.value(.sum(\.salary), order: .reverse)])
        let rows = try context.aggregate(descriptor)
        #expect(rows.map { $0.group } == [[.string("Acme")], [.string("Globex")], [.null]])
        #expect(rows.map { $0.sum(\Worker.salary) } == [6_500_000, 1_000_000, 500_000])
        #expect(rows[0][\Worker.firm?.name] == .some("Acme"))
        descriptor.having = { $0.count >= 1 && ($0.sum(\Worker.salary) ?? 0) < 2_000_000 }
        descriptor.limit = 1
        #expect(try context.aggregate(descriptor).map { $0.group } == [[.string("Globex")]])
        descriptor.offset = 1
        #expect(try context.aggregate(descriptor).map { $0.group } == [[.null]])
    }

    @Test func withoutGroupsThereIsOneRowEvenForNoObjects() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try fixture.open([Worker.self, Firm.self]))
        let rows = try context.aggregate(
            AggregateDescriptor<Worker>(computing: [
                .sum(\.salary), .average(\.salary), .minimum(\.hired),
            ]))
        #expect(rows.count == 1)
        #expect(rows[0].count == 0)
        #expect(rows[0].values == [.integer(0), .null, .null])
        #expect(try context.sum(\Worker.salary) == 0)
        #expect(try context.average(\Worker.salary) == nil)
        #expect(try context.maximum(\Worker.salary) == nil)
        #expect(try context.distinct(\Worker.designation).isEmpty)
        #expect(
            try context.aggregate(AggregateDescriptor<Worker>(groupBy: [\.designation])).isEmpty)
    }

    @Test func shortcutsAndDates() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try fixture.open([Worker.self, Firm.self]))
        try staff(context)
        let engineers = #Predicate<Worker> { $0.designation == "Engineer" }
        #expect(try context.sum(\Worker.salary, where: engineers) == 4_500_000)
        #expect(try context.average(\Worker.rating, where: engineers) == 1.5)
        #expect(try context.minimum(\Worker.name) == "Ann")
        #expect(try context.maximum(\Worker.salary, where: engineers) == 2_000_000)
        #expect(try context.distinct(\Worker.designation) == ["Clerk", "Engineer", "Manager"])
        #expect(try context.distinct(\Worker.firm?.name) == [nil, "Acme", "Globex"])
        for (i, worker) in try context.fetch(FetchDescriptor<Worker>()).enumerated() {
            worker.hired = Date(timeIntervalSinceReferenceDate: Double(i) * 86_400)
        }
        #expect(
            try context.average(\Worker.hired) == Date(timeIntervalSinceReferenceDate: 2 * 86_400))
        #expect(
            try context.maximum(\Worker.hired) == Date(timeIntervalSinceReferenceDate: 4 * 86_400))
        #expect(try context.minimum(\Worker.level) == .some(nil))
    }

    @Test func anIntegerSumPast64BitsIsAnError() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try fixture.open([Worker.self, Firm.self]))
        for salary in [Int64.max, 1, Int64.min, Int64.max] {
            let worker = Worker()
            worker.salary = salary
            context.insert(worker)
        }
        // Int64.max + 1 + Int64.min + Int64.max fits (Int64.max): no intermediate overflow.
        #expect(try context.sum(\Worker.salary) == Int64.max)
        let one = Worker()
        one.salary = 1
        context.insert(one)
        #expect(throws: LogbookError.aggregateOverflow(entity: "Worker", attribute: "salary")) {
            try context.sum(\Worker.salary)
        }
        // The mean is a Double: no overflow.
        #expect(try context.average(\Worker.salary) != nil)
    }

    @Test func whatCannotBeComputedIsATypedError() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try fixture.open([Worker.self, Firm.self]))
        #expect(throws: LogbookError.self) { try context.sum(\Worker.name) }
        #expect(throws: LogbookError.self) { try context.sum(\Worker.hired) }
        #expect(throws: LogbookError.self) {
            try context.aggregate(AggregateDescriptor<Worker>(groupBy: [\.name.count]))
        }
        #expect(throws: LogbookError.self) {
            try context.aggregate(
                AggregateDescriptor<Worker>(groupBy: [\.name], sortBy: [.value(.sum(\.salary))]))
        }
        #expect(throws: LogbookError.unknownAttribute(entity: "Worker", attribute: "nope")) {
            try context.aggregate(
                EntityAggregateDescriptor(entityName: "Worker", groupBy: ["nope"]))
        }
    }

    @Test func theDynamicAPINamesItsColumns() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try fixture.open([Worker.self, Firm.self]))
        try staff(context)
        var descriptor = EntityAggregateDescriptor(
            entityName: "Worker", predicate: try StringPredicate("salary > %@", 600_000),
            groupBy: ["firm.name", "designation"],
            functions: [(.sum, "salary"), (.average, "rating"), (.count, "level")])
        descriptor.having = try StringPredicate("count >= 1 AND sum_salary > 1000000")
        descriptor.sortBy = [("sum_salary", false)]
        let rows = try context.aggregate(descriptor)
        #expect(
            rows.map { $0.group } == [
                [.string("Acme"), .string("Engineer")], [.string("Acme"), .string("Manager")],
            ])
        #expect(rows[0][column: "sum_salary"] == .integer(3_500_000))
        #expect(rows[0][column: "count_level"] == .integer(0))
        #expect(
            rows[0].columnNames == [
                "firm.name", "designation", "count", "sum_salary", "avg_rating", "count_level",
            ])
        #expect(
            try context.distinctValues(entity: "Worker", attribute: "designation")
                == [.string("Clerk"), .string("Engineer"), .string("Manager")])
    }
}

/// Answers the indexes give without reading a record, and the scan the others need.
@MainActor @Suite struct AggregateIndexAnswerTests {
    @Test func countMinimumMaximumAndGroupCountsReadNoRecord() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = ModelContext(try fixture.open([IndexedWorker.self, IndexedFirm.self]))
        var salaries: [Int64] = []
        for i in 0..<60 {
            let worker = IndexedWorker()
            worker.name = "W\(i)"
            worker.designation = ["Engineer", "Clerk", "Manager"][i % 3]
            worker.salary = Int64((i * 7_919) % 1_000 + 100)
            worker.hired = Date(timeIntervalSinceReferenceDate: Double(i * 86_400))
            salaries.append(worker.salary)
            context.insert(worker)
        }
        try context.save()
        let count = try context.explainAggregate(AggregateDescriptor<IndexedWorker>())
        #expect(count.rows.first?.count == 60)
        #expect(count.recordsRead == 0)
        let extremes = try context.explainAggregate(
            AggregateDescriptor<IndexedWorker>(
                computing: [
                    .minimum(\.salary), .maximum(\.salary), .count(\.level), .maximum(\.hired),
                ]))
        #expect(extremes.recordsRead == 0)
        #expect(extremes.rows.first?.minimum(\IndexedWorker.salary) == salaries.min())
        #expect(extremes.rows.first?.maximum(\IndexedWorker.salary) == salaries.max())
        #expect(
            extremes.rows.first?.value(AggregateFunction<IndexedWorker>.count(\.level))
                == .integer(0))
        #expect(
            extremes.rows.first?.maximum(\IndexedWorker.hired)
                == Date(timeIntervalSinceReferenceDate: Double(59 * 86_400)))
        let perDesignation = try context.explainAggregate(
            AggregateDescriptor<IndexedWorker>(groupBy: [\.designation]))
        #expect(perDesignation.recordsRead == 0)
        #expect(perDesignation.rows.map(\.count) == [20, 20, 20])
        let byPredicate = try context.explainAggregate(
            AggregateDescriptor<IndexedWorker>(
                predicate: #Predicate { $0.designation == "Clerk" }))
        #expect(byPredicate.rows.first?.count == 20)
        #expect(byPredicate.recordsRead == 0)
        // Grouped by the leading field of an index that also holds salary: its entries alone.
        let covered = try context.explainAggregate(
            AggregateDescriptor<IndexedWorker>(
                groupBy: [\.designation],
                computing: [.sum(\.salary), .average(\.salary), .maximum(\.salary)]))
        #expect(covered.recordsRead == 0)
        for row in covered.rows {
            let designation = row[\IndexedWorker.designation] ?? ""
            let paid = (0..<60).filter { ["Engineer", "Clerk", "Manager"][$0 % 3] == designation }
                .map { salaries[$0] }
            #expect(row.sum(\IndexedWorker.salary) == paid.reduce(0, +))
            #expect(row.average(\IndexedWorker.salary) == Double(paid.reduce(0, +)) / 20)
            #expect(row.maximum(\IndexedWorker.salary) == paid.max())
        }
        // A sum needs the values: one scan of the records.
        let sum = try context.explainAggregate(
            AggregateDescriptor<IndexedWorker>(computing: [.sum(\.salary)]))
        #expect(sum.rows.first?.sum(\IndexedWorker.salary) == salaries.reduce(0, +))
        #expect(sum.recordsRead == 60)
    }
}
