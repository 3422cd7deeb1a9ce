import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// ``ModelContainer/lastPrimaryKey(of:)``: the largest key handed out, kept across deletes and
/// reopens.
@MainActor @Suite struct LastPrimaryKeyTests {
    @Test func theLastKeyHandedOutSurvivesDeletesAndReopens() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var container = try fixture.open([Employee.self])
        #expect(try container.lastPrimaryKey(of: "Employee") == 0)
        let context = container.mainContext
        let people = (0..<3).map { Employee(name: "E\($0)") }
        for person in people { context.insert(person) }
        try context.save()
        context.delete(people[2])
        try context.save()
        #expect(try container.lastPrimaryKey(of: "Employee") == 3)
        #expect(try container.store.count(in: "Employee") == 2)
        #expect(throws: LogbookError.self) { try container.lastPrimaryKey(of: "Nobody") }
        try container.close()
        var options = LogStoreOptions()
        options.readOnly = true
        container = try ModelContainer(schema: nil, at: fixture.url, options: options)
        #expect(try container.lastPrimaryKey(of: "Employee") == 3)
        try container.close()
    }
}
