import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// `logbook query` (issue 39): aggregates per group and full-text search of a store whose
/// schema the tool reads from the store.
@Suite struct QueryCommandTests {
    /// Staff of two companies, one employee without a company, names searchable.
    private static func staff(at path: String) throws {
        let schema = Schema([
            Entity(
                name: "Firm", attributes: [AttributeDescription("name", .string)]),
            Entity(
                name: "Staff",
                attributes: [
                    AttributeDescription("name", .string, searchable: true),
                    AttributeDescription("designation", .string, indexed: true),
                    AttributeDescription("salary", .integer),
                ],
                relationships: [RelationshipDescription("firm", destination: "Firm")]),
        ])
        let container = try ModelContainer(schema: schema, at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        let acme = try context.insert(entity: "Firm", values: ["name": "Acme"])
        let globex = try context.insert(entity: "Firm", values: ["name": "Globex"])
        let rows: [(String, String, Int64, (any ModelObject)?)] = [
            ("José Müller", "Engineer", 100, acme), ("Ann Lee", "Engineer", 300, globex),
            ("Marta Ng", "Manager", 500, acme), ("Bo", "Clerk", 50, nil),
        ]
        for (name, designation, salary, firm) in rows {
            let staff = try context.insert(
                entity: "Staff",
                values: ["name": name, "designation": designation, "salary": salary])
            if let firm { try staff.setValue(firm, forKey: "firm") }
        }
        try context.save()
        try container.close()
    }

    @Test func groupsSumsAveragesHavingAndOrder() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.staff(at: path)
        let byFirm = try CLI.run([
            "query", path, "--entity", "Staff", "--group-by", "firm.name", "--sum", "salary",
            "--avg", "salary", "--sort", "-sum_salary",
        ])
        #expect(byFirm.status == 0, "\(byFirm.stderr)")
        #expect(
            byFirm.stdout.split(separator: "\n") == [
                "firm.name  count  sum_salary  avg_salary",
                "Acme           2         600      300.00",
                "Globex         1         300      300.00",
                "null           1          50       50.00",
            ])
        let json = try CLI.run([
            "query", path, "--entity", "Staff", "--group-by", "designation", "--max", "salary",
            "--having", "count > 1", "--format", "json",
        ])
        #expect(json.stdout == "{\"designation\":\"Engineer\",\"count\":2,\"max_salary\":300}\n")
        let distinct = try CLI.run([
            "query", path, "--entity", "Staff", "--distinct", "designation",
        ])
        #expect(distinct.stdout == "Clerk\nEngineer\nManager\n")
    }

    @Test func searchRanksAndFoldsAccents() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.staff(at: path)
        let found = try CLI.run([
            "query", path, "--entity", "Staff", "--search", "jose muller", "--format", "json",
        ])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.hasPrefix("{\"id\":1,\"score\":"))
        #expect(found.stdout.split(separator: "\n").count == 1)
        let notSearchable = try CLI.run(["query", path, "--entity", "Firm", "--search", "acme"])
        #expect(notSearchable.status == 1)
        #expect(notSearchable.stderr.contains("Firm has no searchable attribute"))
        let unknown = try CLI.run(["query", path, "--entity", "Nope"])
        #expect(unknown.status == 2)
        let badSum = try CLI.run(["query", path, "--entity", "Staff", "--sum", "name"])
        #expect(badSum.status == 1, "\(badSum.stdout)")
    }
}
