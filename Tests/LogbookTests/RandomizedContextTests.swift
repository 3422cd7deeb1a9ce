import Foundation
import Logbook
import TestSupport
import Testing

/// Random inserts, updates, deletes, saves, rollbacks and reopens, checked against a
/// dictionary model after every step. Prints its seed; `LOGBOOK_SEED=n` replays one.
@Suite struct RandomizedContextTests {
    @Test func contextMatchesADictionaryModel() throws {
        let seed =
            ProcessInfo.processInfo.environment["LOGBOOK_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64.max / 2)
        print("RandomizedContextTests seed: \(seed) (LOGBOOK_SEED=\(seed) to replay)")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var container: ModelContainer? = try fixture.open()
        var context = ModelContext(container!)
        /// Saved state and pending state, by identifier: (name, salary).
        var saved: [PersistentIdentifier: (String, Int64)] = [:]
        var pending = saved
        for step in 0..<400 {
            let roll = Int.random(in: 0..<100, using: &rng)
            if roll < 30 {
                let e = Employee(
                    name: "e\(step)", designation: "D\(step % 3)",
                    salary: Int64.random(in: 0..<1000, using: &rng))
                context.insert(e)
                pending[e.persistentModelID] = (e.name, e.salary)
            } else if roll < 55, let id = pending.keys.randomElement(using: &rng) {
                let e = try #require(
                    try context.model(for: id, as: Employee.self), "step \(step) seed \(seed)")
                e.salary = Int64.random(in: 0..<1000, using: &rng)
                pending[id]?.1 = e.salary
            } else if roll < 70, let id = pending.keys.randomElement(using: &rng) {
                let e = try #require(
                    try context.model(for: id, as: Employee.self), "step \(step) seed \(seed)")
                context.delete(e)
                pending[id] = nil
            } else if roll < 85 {
                try context.save()
                saved = pending
            } else if roll < 93 {
                context.rollback()
                pending = saved
            } else {
                try context.save()
                saved = pending
                try container?.close()
                container = nil
                container = try fixture.open()
                context = ModelContext(container!)
            }
            // Fetch with pending changes must equal the pending model; the store must hold the saved one.
            let all = try context.fetch(
                FetchDescriptor<Employee>(sortBy: [
                    SortDescriptor(\.salary), SortDescriptor(\.name),
                ]))
            let expected = pending.values.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
            guard all.map(\.name) == expected.map(\.0), all.map(\.salary) == expected.map(\.1)
            else {
                Issue.record(
                    "step \(step) seed \(seed): fetched \(all.map { ($0.name, $0.salary) }), expected \(expected)"
                )
                return
            }
            var storeOnly = FetchDescriptor<Employee>(predicate: #Predicate { $0.salary >= 500 })
            storeOnly.includePendingChanges = false
            let storedRich = try ModelContext(container!).fetchCount(storeOnly)
            guard storedRich == saved.values.filter({ $0.1 >= 500 }).count else {
                Issue.record(
                    "step \(step) seed \(seed): the store holds \(storedRich) rich employees")
                return
            }
        }
    }
}
