import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// `dump` on a store whose schema grew: Employees saved under version 1, then a Company entity
/// and Employee's to-one `company` (version 2), as the employees app's upgrade does.
@Suite struct SchemaVersionDumpTests {
    static func makeStore(at path: String) throws {
        let url = URL(fileURLWithPath: path)
        let v1 = Schema([
            Entity(
                name: "Employee",
                attributes: [
                    AttributeDescription("name", .string), AttributeDescription("salary", .integer),
                ])
        ])
        let first = try ModelContainer(schema: v1, at: url)
        let firstContext = ModelContext(first)
        try firstContext.insert(entity: "Employee", values: ["name": "Ann", "salary": 10])
        try firstContext.save()
        try first.close()
        let v2 = Schema([
            Entity(
                name: "Employee",
                attributes: [
                    AttributeDescription("name", .string), AttributeDescription("salary", .integer),
                ],
                relationships: [
                    RelationshipDescription("company", destination: "Company", inverse: "employees")
                ]),
            Entity(
                name: "Company", attributes: [AttributeDescription("name", .string, unique: true)],
                relationships: [
                    RelationshipDescription(
                        "employees", destination: "Employee", toMany: true, inverse: "company",
                        deleteRule: .deny)
                ]),
        ])
        let second = try ModelContainer(schema: v2, at: url)
        let context = ModelContext(second)
        let acme = try context.insert(entity: "Company", values: ["name": "Acme"])
        let bo = try context.insert(entity: "Employee", values: ["name": "Bo", "salary": 20])
        try bo.setValue(acme, forKey: "company")
        try context.save()
        try second.close()
    }

    @Test func textDumpShowsEverySchemaVersionAndDecodesOlderRecords() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.makeStore(at: path)
        let result = try CLI.run(["dump", path])
        #expect(result.status == 0, "\(result.stderr)")
        // Each row without its segment, offset, sequence and type, spaces collapsed.
        let rows = result.stdout.split(separator: "\n").map {
            $0.split(separator: " ").dropFirst(4).joined(separator: " ")
        }
        #expect(rows.contains("logbook.schema version 1 Employee(name: String, salary: Int64)"))
        #expect(
            rows.contains(
                "logbook.schema version 2 Employee(name: String, salary: Int64, company: Company?) "
                    + "Company(name: String unique, employees: [Employee] deny)"))
        #expect(rows.contains("Employee 1 name=\"Ann\" salary=10 company=nil"))
        #expect(rows.contains("Company 1 name=\"Acme\""))
        #expect(rows.contains("Employee 2 name=\"Bo\" salary=20 company=1"))
        #expect(!result.stdout.contains("does not decode"))
    }

    @Test func jsonDumpCarriesSchemasAndRelationshipValues() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.makeStore(at: path)
        let result = try CLI.run(["dump", path, "--format", "jsonl"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let schemas = records.compactMap { $0["schema"] as? [String: Any] }
        #expect(schemas.map { $0["version"] as? Int } == [1, 2])
        let company = (schemas.last?["entities"] as? [[String: Any]])?.first {
            $0["name"] as? String == "Company"
        }
        let relationship = (company?["relationships"] as? [[String: Any]])?.first
        #expect(relationship?["name"] as? String == "employees")
        #expect(relationship?["toMany"] as? Bool == true)
        #expect(relationship?["deleteRule"] as? String == "deny")
        let employees = records.filter { $0["entity"] as? String == "Employee" }
            .compactMap { $0["object"] as? [String: Any] }
        #expect(employees.map { $0["name"] as? String } == ["Ann", "Bo"])
        #expect(employees.first?["company"] is NSNull)
        #expect(employees.last?["company"] as? Int == 1)
    }

    /// export → import of a store with a relationship: the schema line carries it, so the copy
    /// has the same schema.
    @Test func exportedSchemaLineKeepsRelationships() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.makeStore(at: path)
        let export = try CLI.run(["export", path])
        let schemaLine = try #require(export.stdout.split(separator: "\n").first)
        writeFile(dir.child("schema.jsonl"), b(schemaLine + "\n"))
        #expect(try CLI.run(["import", dir.child("copy"), dir.child("schema.jsonl")]).status == 0)
        let copied = try #require(
            try CLI.run(["export", dir.child("copy")]).stdout.split(separator: "\n").first)
        // The copy numbers its schema 1; the entities are the same.
        let entities = { (line: Substring) in line.split(separator: "\"entities\"").last }
        #expect(entities(copied) == entities(schemaLine))
        #expect(copied.contains("\"relationships\":[{\"name\":\"company\""))
    }
}
