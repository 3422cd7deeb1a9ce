import Foundation
import Logbook
import TestSupport
import Testing

/// ``PrimaryKeyOrder``: an entity's records by primary key, whatever their order in the log,
/// whole or a page at a time, in both directions.
@MainActor @Suite struct PrimaryKeyOrderTests {
    /// A store of Employees whose log is out of key order (updates move records to its end)
    /// with some deleted; returns the live primary keys, ascending.
    private func scrambled(_ fixture: LogbookFixture) throws -> (ModelContainer, [UInt64]) {
        let container = try fixture.open()
        let context = container.mainContext
        var employees: [Employee] = []
        for i in 0..<60 {
            let employee = Employee(name: "e\(i)", salary: Int64(i))
            context.insert(employee)
            employees.append(employee)
            if i % 20 == 19 { try context.save() }
        }
        for employee in employees.reversed() where employee.salary % 3 == 0 {
            employee.salary += 1000
            try context.save()
        }
        for employee in employees where employee.salary % 7 == 1 { context.delete(employee) }
        try context.save()
        let live = try context.fetch(FetchDescriptor<Employee>()).map(
            \.persistentModelID.primaryKey)
        return (container, live.sorted())
    }

    private func visit(
        _ order: PrimaryKeyOrder, _ container: ModelContainer, after start: UInt64? = nil,
        descending: Bool = false, limit: Int? = nil
    ) throws -> [UInt64] {
        var seen: [UInt64] = []
        try order.forEach(
            in: "Employee", of: container.store, after: start, descending: descending, limit: limit
        ) { key, value in
            let id = try #require(PersistentIdentifier(entityName: "Employee", storeKey: key))
            #expect(!value.isEmpty)
            seen.append(id.primaryKey)
            return true
        }
        return seen
    }

    @Test(arguments: [(1 << 19, 1 << 15), (1 << 19, 0), (5, 2), (1, 0)])
    func everyRecordComesOnceInKeyOrder(window: Int, keptLate: Int) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, keys) = try scrambled(fixture)
        let order = PrimaryKeyOrder(window: window, keptLate: keptLate)
        #expect(try visit(order, container) == keys)
        #expect(try visit(order, container, descending: true) == keys.reversed())
        let middle = keys[keys.count / 2]
        #expect(try visit(order, container, after: middle) == keys.filter { $0 > middle })
        #expect(
            try visit(order, container, after: middle, descending: true)
                == keys.filter { $0 < middle }.reversed())
    }

    @Test(arguments: [false, true])
    func pagesFollowOneAnother(descending: Bool) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, keys) = try scrambled(fixture)
        var pages: [[UInt64]] = []
        var last: UInt64?
        while true {
            let page = try visit(
                PrimaryKeyOrder(), container, after: last, descending: descending, limit: 7)
            guard let end = page.last else { break }
            #expect(page.count <= 7)
            pages.append(page)
            last = end
        }
        #expect(pages.joined().elementsEqual(descending ? keys.reversed() : keys))
        #expect(pages.count == (keys.count + 6) / 7)
    }

    @Test func aVisitStopsWhenTheBodySaysSo() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, keys) = try scrambled(fixture)
        var seen: [UInt64] = []
        try PrimaryKeyOrder().forEach(in: "Employee", of: container.store) { key, _ in
            seen.append(PersistentIdentifier(entityName: "Employee", storeKey: key)!.primaryKey)
            return seen.count < 4
        }
        #expect(seen == Array(keys.prefix(4)))
    }

    /// `first` sees every record, in log order, before `body` sees any, whatever the window
    /// (with more late records than it holds, the walk goes on a window of keys at a time).
    @Test(arguments: [(1 << 19, 1 << 15), (5, 2), (1, 0)])
    func theFirstLookSeesEveryRecordBeforeAnyIsGiven(window: Int, keptLate: Int) throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, keys) = try scrambled(fixture)
        var inLogOrder: [UInt64] = []
        try container.store.forEach(in: "Employee") { key, _ in
            inLogOrder.append(
                PersistentIdentifier(entityName: "Employee", storeKey: key)!.primaryKey)
        }
        #expect(inLogOrder != keys, "the log is out of key order")
        var looked: [UInt64] = []
        var given: [UInt64] = []
        try PrimaryKeyOrder(window: window, keptLate: keptLate).forEach(
            in: "Employee", of: container.store,
            first: { key, value in
                #expect(given.isEmpty && !value.isEmpty)
                looked.append(
                    PersistentIdentifier(entityName: "Employee", storeKey: key)!.primaryKey)
            },
            { key, _ in
                given.append(
                    PersistentIdentifier(entityName: "Employee", storeKey: key)!.primaryKey)
                return true
            })
        #expect(looked == inLogOrder)
        #expect(given == keys)
    }
}
