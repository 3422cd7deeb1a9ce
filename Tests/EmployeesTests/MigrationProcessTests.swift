import Foundation
import Logbook
import Testing

@testable import employees

/// The upgrade of a store written by the app before companies existed
/// (`Fixtures/Employees-v1.logbook`, see Fixtures/README.md): today's executable opens it by
/// lightweight migration and keeps every employee.
@Suite struct MigrationProcessTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Employees-v1.logbook")

    private struct Row: Decodable, Equatable {
        var id: String
        var name: String
        var designation: String
        var salary: Int64
        var company: [String: String]?
    }

    /// A fresh copy of the fixture at `employees.storePath` (opening writes to a store).
    private func copyFixture(into employees: EmployeesProcess) throws {
        try FileManager.default.copyItem(
            at: Self.fixture, to: URL(fileURLWithPath: employees.storePath))
    }

    private func listJSON(_ employees: EmployeesProcess) throws -> [Row] {
        let result = try employees.runInStore("list", "--json")
        try #require(result.status == 0, "\(result.standardError)")
        return try JSONDecoder().decode([Row].self, from: Data(result.standardOutput.utf8))
    }

    @Test func theFixtureIsTheOldSchema() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        try copyFixture(into: employees)
        let dump = try employees.runLogbook("dump", employees.storePath)
        #expect(dump.status == 0)
        #expect(!dump.standardOutput.contains("Company"), "made before companies existed")
        #expect(
            dump.lines.filter { $0.contains(" put ") && $0.contains("logbook.schema") }.count == 1)
    }

    @Test func anOldStoreOpensWithEveryEmployeeAndTakesCompanies() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        try copyFixture(into: employees)
        #expect(
            try listJSON(employees) == [
                Row(id: "Employee/1", name: "Ann Lee", designation: "Engineer", salary: 3_000_000),
                Row(
                    id: "Employee/2", name: "Kevin Park", designation: "Designer", salary: 1_500_000
                ),
                Row(
                    id: "Employee/3", name: "Maria Garcia", designation: "Support", salary: 900_000),
                Row(
                    id: "Employee/4", name: "李小龙", designation: "Martial artist", salary: 1_200_000),
            ])
        try employees.expectVerified()

        #expect(try employees.runInStore("company", "add", "--name", "Acme").lines == ["Company/1"])
        #expect(try employees.runInStore("update", "Employee/4", "--company", "Acme").status == 0)
        let added = try employees.runInStore("add", "--name", "New", "--salary", "1")
        #expect(
            added.lines == ["Employee/6"], "Employee/5 was deleted before; ids are never reused")
        let rows = try listJSON(employees)
        #expect(rows.count == 5)
        #expect(rows[3].company == ["id": "Company/1", "name": "Acme"])
        #expect(rows.filter { $0.company != nil }.map(\.id) == ["Employee/4"])
        try employees.expectVerified()

        // Both schema versions are in the log. (What `logbook dump` prints for them and for
        // relationship values is the tool's own; only that both are there is checked here.)
        let dump = try employees.runLogbook("dump", employees.storePath)
        #expect(dump.status == 0)
        #expect(
            dump.lines.filter { $0.contains(" put ") && $0.contains("logbook.schema") }.count == 2)
        #expect(dump.lines.contains { $0.contains("Company") && $0.contains("Acme") })
    }

    @Test func theMigratedSchemaIsVersionTwoWithTheRelationshipAndItsRules() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        try copyFixture(into: employees)
        let repository = try LogbookEmployeeRepository(path: employees.storePath)
        let schema = repository.context.container.schema
        #expect(schema.version == 2)
        #expect(schema.entities.map(\.name) == ["Employee", "Company"])
        let employee = try #require(schema.entity(named: "Employee"))
        #expect(employee.attributes.map(\.name) == ["name", "designation", "salary"])
        #expect(
            employee.relationships == [
                RelationshipDescription("company", destination: "Company", inverse: "employees")
            ])
        let company = try #require(schema.entity(named: "Company"))
        #expect(company.attributes.map(\.name) == ["name", "city"])
        #expect(company.attributes.map(\.isUnique) == [true, false])
        #expect(company.attributes.map(\.isOptional) == [false, true])
        #expect(
            company.relationships == [
                RelationshipDescription(
                    "employees", destination: "Employee", toMany: true, inverse: "company",
                    deleteRule: .deny)
            ])
        #expect(try repository.all().count == 4)
    }

    @Test func aDanglingCompanyReferenceIsFoundByVerify() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        try copyFixture(into: employees)
        #expect(try employees.runInStore("company", "add", "--name", "Acme").status == 0)
        #expect(try employees.runInStore("update", "Employee/4", "--company", "Acme").status == 0)
        // Remove the company under the object layer's feet: 李小龙's company now dangles.
        do {
            let store = try LogStore(path: employees.storePath)
            let key: [UInt8] = withUnsafeBytes(of: UInt64(1).bigEndian) { Array($0) }
            #expect(try store.contains(key, in: "Company"))
            try store.delete(key, in: "Company")
            try store.close()
        }
        let verify = try employees.runLogbook("verify", employees.storePath)
        #expect(verify.status == 1)
        #expect(
            verify.standardOutput.contains(
                "Employee/4: company points at Company/1, which does not exist"),
            "\(verify.standardOutput)")
        // The app still lists every employee; the dangling one shows no company.
        let rows = try listJSON(employees)
        #expect(rows.count == 4 && rows.allSatisfy { $0.company == nil })
    }
}
