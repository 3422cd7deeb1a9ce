import Foundation
import Logbook

/// The soak's writer: one step is one save of a few mixed changes (inserts, updates, deletes,
/// moves between companies, a new company), or one batch operation (an update or a delete
/// by predicate), or the deletion of a company. Before each it reports its effects
/// (`intent`), after it returns the commit it reached (`ack`); ``state`` mirrors the store.
package struct SoakWriter {
    let container: ModelContainer
    package var state: SoakState
    package var rng: SeededGenerator
    private var nextCode: Int64

    package init(container: ModelContainer, state: SoakState, rng: SeededGenerator) {
        self.container = container
        self.state = state
        self.rng = rng
        nextCode = max(state.employees.keys.max() ?? 0, state.companies.keys.max() ?? 0) + 1
    }

    /// One save or batch operation, reported before (`intent`) and after (`ack`).
    package mutating func step() throws {
        let kind = Int.random(in: 0..<100, using: &rng)
        var effects: [SoakState.Effect] = []
        let context = ModelContext(container)
        let operation: () throws -> Void
        if kind < 8 {
            // A batch update of the lowest salaries (about 5% of the employees).
            let below = Int64.random(in: 0..<5_000, using: &rng)
            let step = Int64.random(in: 1...900, using: &rng)
            for (code, p) in state.employees.sorted(by: { $0.key < $1.key }) where p.salary < below
            {
                var changed = p
                changed.salary += step
                effects.append(.employee(code, changed))
            }
            let expected = effects.count
            operation = {
                let n = try context.update(
                    model: SoakEmployee.self, where: #Predicate { $0.salary < below }
                ) { $0.salary += step }
                guard n == expected else {
                    throw SoakError("batch update changed \(n), not \(expected)")
                }
            }
        } else if kind < 13 {
            // A batch delete of the highest salaries (about 1%).
            let from = Int64.random(in: 98_000..<100_500, using: &rng)
            for (code, p) in state.employees.sorted(by: { $0.key < $1.key }) where p.salary >= from
            {
                effects.append(.deleteEmployee(code))
            }
            let expected = effects.count
            operation = {
                let n = try context.delete(
                    model: SoakEmployee.self, where: #Predicate { $0.salary >= from })
                guard n == expected else {
                    throw SoakError("batch delete removed \(n), not \(expected)")
                }
            }
        } else if kind < 15, let code = state.companies.keys.sorted().randomElement(using: &rng) {
            effects.append(.deleteCompany(code))
            operation = {
                guard let company = try Self.company(code, in: context) else {
                    throw SoakError("company \(code) is missing")
                }
                context.delete(company)
                try context.save()
            }
        } else {
            var actions: [(ModelContext) throws -> Void] = []
            var working = state
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                actions.append(randomChange(&working, &effects))
            }
            operation = {
                for action in actions { try action(context) }
                try context.save()
            }
        }
        if effects.isEmpty { return }
        var next = state
        for effect in effects { next.apply(effect) }
        SoakWorkload.say("intent " + effects.map(\.word).joined(separator: " "))
        try operation()
        state = next
        SoakWorkload.say("ack \(try container.currentHistoryToken.sequence)")
    }

    /// One change of a mixed save, applied to `next` and reported in `effects`; the returned
    /// closure makes it in a context. It changes and links only objects saved before (or
    /// inserts new ones), so every object it fetches is in the store.
    private mutating func randomChange(
        _ next: inout SoakState, _ effects: inout [SoakState.Effect]
    ) -> (ModelContext) throws -> Void {
        let codes = next.employees.keys.filter { state.employees[$0] != nil }.sorted()
        var choice = Int.random(in: 0..<10, using: &rng)
        if codes.count >= SoakWorkload.maxEmployees && choice < 3 { choice = 5 }
        if codes.isEmpty { choice = 0 }
        let companies = state.companies.keys.sorted()
        let company: Int64? =
            companies.isEmpty || Int.random(in: 0..<5, using: &rng) == 0
            ? nil : companies.randomElement(using: &rng)
        let effect: SoakState.Effect
        let action: (ModelContext) throws -> Void
        switch choice {
        case 0..<3:
            let code = nextCode
            nextCode += 1
            let person = SoakState.Person(
                name: "n\(Int.random(in: 0..<1_000_000, using: &rng))",
                salary: Int64.random(in: 0..<100_000, using: &rng), company: company)
            effect = .employee(code, person)
            action = { context in
                let e = SoakEmployee()
                e.code = code
                e.name = person.name
                e.salary = person.salary
                context.insert(e)
                e.company = try company.flatMap { try Self.company($0, in: context) }
            }
        case 3..<5:
            let code = codes.randomElement(using: &rng)!
            var person = next.employees[code]!
            person.salary = Int64.random(in: 0..<100_000, using: &rng)
            if Bool.random(using: &rng) {
                person.name = "n\(Int.random(in: 0..<1_000_000, using: &rng))"
            }
            effect = .employee(code, person)
            action = { context in
                let e = try Self.employee(code, in: context)
                e.salary = person.salary
                e.name = person.name
            }
        case 5..<7:
            let code = codes.randomElement(using: &rng)!
            effect = .deleteEmployee(code)
            action = { context in context.delete(try Self.employee(code, in: context)) }
        case 7..<9:
            let code = codes.randomElement(using: &rng)!
            var person = next.employees[code]!
            person.company = company
            effect = .employee(code, person)
            action = { context in
                try Self.employee(code, in: context).company = try company.flatMap {
                    try Self.company($0, in: context)
                }
            }
        default:
            let code = companies.count < 12 ? nextCode : companies.randomElement(using: &rng)!
            if code == nextCode { nextCode += 1 }
            let name = "c\(Int.random(in: 0..<1_000, using: &rng))"
            effect = .company(code, name)
            action = { context in
                if let c = try Self.company(code, in: context) {
                    c.name = name
                } else {
                    let c = SoakCompany()
                    c.code = code
                    c.name = name
                    context.insert(c)
                }
            }
        }
        next.apply(effect)
        effects.append(effect)
        return action
    }

    static func employee(_ code: Int64, in context: ModelContext) throws -> SoakEmployee {
        guard
            let e = try context.fetch(
                FetchDescriptor<SoakEmployee>(predicate: #Predicate { $0.code == code })
            ).first
        else { throw SoakError("employee \(code) is missing") }
        return e
    }

    static func company(_ code: Int64, in context: ModelContext) throws -> SoakCompany? {
        try context.fetch(FetchDescriptor<SoakCompany>(predicate: #Predicate { $0.code == code }))
            .first
    }
}

/// A soak child found the store other than it expected.
struct SoakError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
