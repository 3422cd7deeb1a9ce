import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// Snapshot reads (issue 14): a fetch reads one consistent state of the store, however other
/// contexts save while it runs.
@Suite struct SnapshotReadTests {
    /// Objects added per round, and rounds (each round updates every earlier object: the
    /// writer's work grows with the square of the rounds).
    private static let batch = 200
    private static let rounds = TestTier.pick(quick: 12, long: 25)

    /// Round r inserts `batch` employees with designation "r" and sets every employee's salary
    /// to r, in one save; so a consistent state after m rounds holds m × batch employees, all
    /// with salary m, and each designation complete.
    private static func write(_ container: ModelContainer) throws {
        let writer = ModelContext(container)
        var everyone: [Employee] = []
        for round in 1...rounds {
            for employee in everyone { employee.salary = Int64(round) }
            for i in 0..<batch {
                let employee = Employee(
                    name: "\(round)-\(i)", designation: "\(round)", salary: Int64(round))
                writer.insert(employee)
                everyone.append(employee)
            }
            try writer.save()
        }
    }

    /// Checks that `employees` is one consistent state; returns its round (-1 if it is not).
    private static func check(_ employees: [(designation: String, salary: Int64)]) -> Int {
        let round = employees.count / batch
        let perRound = Dictionary(grouping: employees, by: \.designation).mapValues(\.count)
        let stamps = Set(employees.map(\.salary))
        let consistent =
            employees.count == round * batch && perRound.values.allSatisfy { $0 == batch }
            && (stamps.isEmpty || stamps == [Int64(round)])
        #expect(
            consistent,
            "\(employees.count) objects, \(perRound.count) rounds, salaries \(stamps.sorted())")
        return consistent ? round : -1
    }

    /// Fetches, in several shapes, while another context writes on a thread of its own,
    /// until the writer is done; returns how many fetches saw a state strictly between the
    /// first and the last.
    private static func readWhileWriting(
        _ container: ModelContainer, fetch: (ModelContainer) throws -> Int
    ) throws -> Int {
        let writer = OwnThread { try write(container) }
        var between = 0
        var last = 0
        while true {
            let done = writer.isFinished
            let round = try fetch(container)
            guard round >= 0 else { break }
            #expect(round >= last, "a later fetch saw an earlier state")
            last = round
            if round > 0 && round < rounds { between += 1 }
            if done || round == rounds { break }
        }
        try writer.wait()
        return between
    }

    @Test func aFetchInAFreshContextSeesOneState() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let between = try Self.readWhileWriting(container) { container in
            let context = ModelContext(container)
            return Self.check(
                try context.fetch(FetchDescriptor<Employee>()).map { ($0.designation, $0.salary) })
        }
        #expect(between > 0, "no fetch overlapped a save: the test proved nothing")
    }

    @Test func aFetchInALongLivedContextSeesOneState() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let reader = ModelContext(container)
        let sorted = FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.salary, order: .reverse)])
        var sliced = sorted
        sliced.fetchLimit = Self.batch * Self.rounds
        let between = try Self.readWhileWriting(container) { _ in
            // Objects registered by earlier fetches are returned again: they must show the
            // state this fetch read, like the others.
            let all = try reader.fetch(FetchDescriptor<Employee>())
            let round = Self.check(all.map { ($0.designation, $0.salary) })
            let ordered = try reader.fetch(sliced)
            #expect(Self.check(ordered.map { ($0.designation, $0.salary) }) >= round)
            return round
        }
        #expect(between > 0, "no fetch overlapped a save: the test proved nothing")
    }

    @Test func countsAndIdentifiersSeeOneState() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        _ = try Self.readWhileWriting(container) { container in
            let context = ModelContext(container)
            let ids = try context.fetchIdentifiers(FetchDescriptor<Employee>())
            let round = ids.count / Self.batch
            #expect(ids.count == round * Self.batch)
            let stamped = Int64(round)
            let matching = try context.fetchCount(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.salary == stamped }))
            // A later state may have been read; never a mix.
            #expect(matching == round * Self.batch || matching == 0)
            return round
        }
    }

    /// A fetch the planner answers from an index reads the entries and then the records: both
    /// must come from one state. Round r inserts `batch` staff of designation "r" and sets
    /// every salary to r, in one save; a fetch of one designation must see one salary.
    @Test func aFetchThroughAnIndexSeesOneState() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Staff.self, Team.self])
        let writer = OwnThread {
            let context = ModelContext(container)
            var everyone: [Staff] = []
            for round in 1...Self.rounds {
                for staff in everyone { staff.salary = Int64(round) }
                for i in 0..<Self.batch {
                    let staff = Staff(
                        "\(round)-\(i)", designation: "\(round)", salary: Int64(round))
                    context.insert(staff)
                    everyone.append(staff)
                }
                try context.save()
            }
        }
        let first = FetchDescriptor<Staff>(predicate: #Predicate { $0.designation == "1" })
        var usedIndex = false
        while !writer.isFinished {
            let context = ModelContext(container)
            let staff = try context.fetch(first)
            let salaries = Set(staff.map(\.salary))
            #expect(
                staff.isEmpty || (staff.count == Self.batch && salaries.count == 1),
                "salaries \(salaries.sorted())")
            if try context.explain(first).access == .index { usedIndex = true }
        }
        try writer.wait()
        #expect(usedIndex, "the planner never used the index: the test proved nothing")
    }

    /// The index entries and the records of an index-planned fetch come from one state: round
    /// r adds `batch` staff of designation "x" and sets every one's salary to r, in one save,
    /// so a state after round r has r × batch of them, all paid r. Entries of one state with
    /// records of the next would give (r - 1) × batch paid r.
    @Test func anIndexedFetchSeesTheEntriesAndTheRecordsOfOneState() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Staff.self, Team.self])
        let batch = 40
        // Others, so that the planner picks the index for "x".
        let setup = ModelContext(container)
        for i in 0..<(batch * Self.rounds * 10) { setup.insert(Staff("f\(i)", designation: "f")) }
        try setup.save()
        let writer = OwnThread {
            let context = ModelContext(container)
            var xs: [Staff] = []
            for round in 1...Self.rounds {
                for staff in xs { staff.salary = Int64(round) }
                for i in 0..<batch {
                    let staff = Staff("x\(round)-\(i)", designation: "x", salary: Int64(round))
                    context.insert(staff)
                    xs.append(staff)
                }
                try context.save()
            }
        }
        let descriptor = FetchDescriptor<Staff>(predicate: #Predicate { $0.designation == "x" })
        #expect(try ModelContext(container).explain(descriptor).access == .index)
        var fetches = 0
        while !writer.isFinished {
            let staff = try ModelContext(container).fetch(descriptor)
            let salaries = Set(staff.map(\.salary))
            #expect(salaries.count <= 1, "salaries \(salaries.sorted())")
            if let salary = salaries.first {
                #expect(staff.count == Int(salary) * batch, "\(staff.count) paid \(salary)")
            }
            fetches += 1
        }
        try writer.wait()
        #expect(fetches > 0)
    }

    /// A top-k fetch in index order that needs several batches of entries (here the first
    /// 1,000 in order are pending deletes of the reading context, so they are skipped) reads
    /// every batch from one state. Round r deletes the 10 first "b" staff, adds 10 after the
    /// last and sets every one's salary to r, in one save: a state after round r starts at
    /// b(10 r), all paid r. Entries of a later batch from a newer state would give names that
    /// do not start the window of the salary seen.
    @Test func aTopKFetchOverSeveralBatchesSeesOneState() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Staff.self, Team.self])
        let width = 200
        let step = 10
        @Sendable func name(_ i: Int) -> String { "b" + String(100_000 + i) }
        let setup = ModelContext(container)
        for i in 0..<1_000 { setup.insert(Staff("a" + String(100_000 + i))) }
        for i in 0..<width { setup.insert(Staff(name(i), salary: 0)) }
        try setup.save()
        let writer = OwnThread {
            let context = ModelContext(container)
            var window = try context.fetch(
                FetchDescriptor<Staff>(
                    predicate: #Predicate { $0.name >= "b" }, sortBy: [SortDescriptor(\.name)]))
            for round in 1...Self.rounds {
                for staff in window.prefix(step) { context.delete(staff) }
                window.removeFirst(step)
                for i in 0..<step {
                    let staff = Staff(name(width + (round - 1) * step + i))
                    context.insert(staff)
                    window.append(staff)
                }
                for staff in window { staff.salary = Int64(round) }
                try context.save()
            }
        }
        var topK = FetchDescriptor<Staff>(
            predicate: #Predicate { $0.name < "c" }, sortBy: [SortDescriptor(\.name)])
        topK.fetchLimit = 5
        var fetches = 0
        while !writer.isFinished {
            let context = ModelContext(container)
            for staff in try context.fetch(
                FetchDescriptor<Staff>(predicate: #Predicate { $0.name < "b" }))
            {
                context.delete(staff)
            }
            let explanation = try context.explain(topK)
            #expect(explanation.access == .index && explanation.stoppedEarly)
            let staff = try context.fetch(topK)
            let salaries = Set(staff.map(\.salary))
            #expect(staff.count == 5 && salaries.count == 1, "salaries \(salaries.sorted())")
            if let salary = salaries.first {
                let start = Int(salary) * step
                #expect(
                    staff.map(\.name) == (start..<start + 5).map(name),
                    "paid \(salary): \(staff.map(\.name))")
            }
            fetches += 1
        }
        try writer.wait()
        #expect(fetches > 0)
    }
}
