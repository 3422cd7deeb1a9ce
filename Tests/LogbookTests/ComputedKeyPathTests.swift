import Foundation
import Logbook
import TestSupport
import Testing

/// A model whose computed properties read its attributes: a predicate or a sort on one of them
/// must evaluate the property, never stand in the attribute it reads.
final class Payslip: PersistentModel {
    @Attribute var name = ""
    @Attribute var salary: Int64 = 0
    @Attribute var bonus: Double? = nil
    init() {}
    init(_ name: String, _ salary: Int64, bonus: Double? = nil) {
        self.name = name
        self.salary = salary
        self.bonus = bonus
    }
    /// Same type as `salary`, other values.
    var salaryInCents: Int64 { salary * 100 }
    /// Same type, reverses the order.
    var negatedSalary: Int64 { -salary }
    /// The attribute itself under another name: the same values, so the same answers.
    var pay: Int64 { salary }
    /// Same type as `name`, other values.
    var shout: String { name.uppercased() }
    /// Same type as `bonus`, other values.
    var doubledBonus: Double? { bonus.map { $0 * 2 } }
}

@MainActor @Suite struct ComputedKeyPathTests {
    private func seeded(_ fixture: LogbookFixture) throws -> ModelContext {
        let container = try fixture.open([Payslip.self])
        for (i, salary) in [5, 500, 30, 7, 50_000].enumerated() {
            container.mainContext.insert(
                Payslip("p\(i)", Int64(salary), bonus: i % 2 == 0 ? Double(salary) : nil))
        }
        try container.mainContext.save()
        return ModelContext(container)
    }

    @Test func predicatesOnComputedPropertiesEvaluateThem() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = try seeded(fixture)
        func names(_ predicate: Predicate<Payslip>) throws -> [String] {
            try context.fetch(
                FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name)])
            )
            .map(\.name)
        }
        // If `salaryInCents` stood for `salary`, these would find p1 (salary 500) and nothing.
        #expect(try names(#Predicate { $0.salaryInCents == 500 }) == ["p0"])
        #expect(try names(#Predicate { $0.salaryInCents > 3_000 }) == ["p1", "p4"])
        #expect(try names(#Predicate { $0.negatedSalary < -100 }) == ["p1", "p4"])
        #expect(try names(#Predicate { $0.shout == "P3" }) == ["p3"])
        #expect(try names(#Predicate { $0.doubledBonus == 60 }) == ["p2"])
        #expect(try names(#Predicate { $0.pay == 7 }) == ["p3"])
        #expect(try names(#Predicate { $0.salary == 7 }) == ["p3"])
    }

    @Test func sortsOnComputedPropertiesUseTheirValues() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = try seeded(fixture)
        let byNegated = try context.fetch(
            FetchDescriptor<Payslip>(sortBy: [SortDescriptor(\.negatedSalary)]))
        #expect(byNegated.map(\.name) == ["p4", "p1", "p2", "p3", "p0"])
        let byPay = try context.fetch(
            FetchDescriptor<Payslip>(sortBy: [SortDescriptor(\.pay, order: .reverse)]))
        #expect(byPay.map(\.name) == ["p4", "p1", "p2", "p3", "p0"])
    }

    @Test func countsAndExplanationsSeeThePropertyNotTheAttribute() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let context = try seeded(fixture)
        #expect(
            try context.fetchCount(
                FetchDescriptor<Payslip>(predicate: #Predicate { $0.salaryInCents >= 700 })) == 4)
    }
}
