import Foundation
import Logbook
import TestSupport
import Testing

/// The public surface tools use without app classes: the stored schema, record decoding, and
/// string predicates on decoded records.
@MainActor @Suite struct ToolSupportTests {
    private func storeWithEmployees(_ fixture: LogbookFixture) throws {
        let container = try fixture.open()
        container.mainContext.insert(
            Employee(name: "Ann", designation: "Engineer", salary: 2_000_000))
        container.mainContext.insert(
            Employee(name: "Bob", designation: "Designer", salary: 1_000_000))
        try container.mainContext.save()
        try container.close()
    }

    @Test func decodesRecordsWithTheStoredSchema() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try storeWithEmployees(fixture)
        var options = LogStoreOptions()
        options.readOnly = true
        let store = try LogStore(path: fixture.url.path, options: options)
        let decoder = try RecordDecoder(store: store)
        #expect(decoder.schema.entities.map(\.name) == ["Employee"])
        #expect(decoder.isEntityKeyspace("Employee"))
        #expect(!decoder.isEntityKeyspace("logbook.schema"))
        let records = try decoder.records(of: "Employee", in: store)
        #expect(records.map(\.id.description) == ["Employee/1", "Employee/2"])
        #expect(records[0].attributes.map(\.name) == ["name", "designation", "salary"])
        #expect(records[0].values["salary"] == .integer(2_000_000))
        #expect(records[0].version == 1)
        let rich = try StringPredicate("salary >= %@ AND designation ==[c] 'engineer'", 1_500_000)
        #expect(try records.filter { try rich.evaluate($0.values) }.map(\.id.primaryKey) == [1])
    }

    @Test func readOnlyContainerUsesTheStoredSchema() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try storeWithEmployees(fixture)
        var options = LogStoreOptions()
        options.readOnly = true
        let container = try ModelContainer(schema: nil, at: fixture.url, options: options)
        let rows = try container.mainContext.fetch(entity: "Employee", where: "name BEGINSWITH 'B'")
        #expect(rows.count == 1)
        #expect(rows.first?["designation"] as? String == "Designer")
        #expect((rows.first as? ManagedObject)?.description.contains("Employee/2") == true)
    }

    @Test func damagedRecordIsAnErrorNotATrap() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        try storeWithEmployees(fixture)
        let store = try LogStore(path: fixture.url.path)
        let decoder = try RecordDecoder(store: store)
        for damaged: [UInt8] in [
            [], [1], [1, 1, 200], [9, 1, 3, 65], [1, 1, 3, 65, 66, 67, 1, 65, 2, 7],
        ] {
            #expect(throws: LogbookError.self) {
                try decoder.decode(
                    keyspace: "Employee", key: [0, 0, 0, 0, 0, 0, 0, 9], value: damaged)
            }
        }
        #expect(throws: LogbookError.self) {
            try decoder.decode(keyspace: "Employee", key: [1], value: [])
        }
        try store.put([1, 1, 3, 65], for: [0, 0, 0, 0, 0, 0, 0, 9], in: "Employee")
        try store.close()
        let container = try ModelContainer(for: [Employee.self], at: fixture.url)
        #expect(throws: LogbookError.self) {
            try ModelContext(container).fetch(FetchDescriptor<Employee>())
        }
    }

    @Test func identifierStringForm() {
        #expect(
            PersistentIdentifier("Employee/42")
                == PersistentIdentifier(entityName: "Employee", primaryKey: 42))
        #expect(PersistentIdentifier("Employee/") == nil)
        #expect(PersistentIdentifier("/3") == nil)
        #expect(PersistentIdentifier("Employee") == nil)
        #expect(PersistentIdentifier("Employee/-1") == nil)
        #expect(PersistentIdentifier("a/b/7")?.entityName == "a/b")
    }
}
