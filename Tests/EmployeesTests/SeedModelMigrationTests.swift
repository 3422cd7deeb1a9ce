import Foundation
import Logbook
import Testing

@testable import employees

/// The seed's own model, end to end (`Fixtures/SeedModel.logbook`, written by
/// ``SeedModelFixture/write(to:salaries:)`` with the seed's Core Data fields and text salaries):
/// today's `employees` opens it through its migration plan, renaming the fields and parsing the
/// salaries; a salary that does not parse refuses, names the employee, and changes nothing.
@Suite struct SeedModelMigrationTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/SeedModel.logbook")

    private struct Row: Decodable, Equatable {
        var id: String
        var name: String
        var designation: String
        var salary: Int64
    }

    private func list(_ employees: EmployeesProcess) throws -> [Row] {
        let result = try employees.runInStore("list", "--json")
        try #require(result.status == 0, "\(result.standardError)")
        return try JSONDecoder().decode([Row].self, from: Data(result.standardOutput.utf8))
    }

    @Test func theCommittedFixtureIsTheSeedModel() throws {
        var options = LogStoreOptions()
        options.readOnly = true
        let store = try LogStore(path: Self.fixture.path, options: options)
        defer { try? store.close() }
        let schema = try #require(try Schema.stored(in: store))
        #expect(
            schema.entity(named: "Employee")?.attributes.map(\.name) == [
                "employee_Name", "employee_Designation", "employee_Salary",
            ])
        #expect(
            schema.entity(named: "Employee")?.attributes.map(\.type) == [.string, .string, .string])
    }

    @Test func todaysAppMigratesTheSeedModelFixture() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        try FileManager.default.copyItem(
            at: Self.fixture, to: URL(fileURLWithPath: employees.storePath))
        let rows = try list(employees)
        #expect(
            rows
                == SeedModelFixture.rows.enumerated().map { i, row in
                    Row(
                        id: "Employee/\(i + 1)", name: row.name, designation: row.designation,
                        salary: Int64(row.salary.trimmingSpaces())!)
                })
        // It is today's store now: companies work, and a second open migrates nothing.
        #expect(try employees.runInStore("company", "add", "--name", "Acme").status == 0)
        #expect(try list(employees).count == SeedModelFixture.rows.count)
        let verify = try employees.runLogbook("verify", employees.storePath)
        #expect(verify.status == 0, "\(verify.standardOutput)\(verify.standardError)")
    }

    @Test func anUnparsableSalaryRefusesNamesTheEmployeeAndChangesNothing() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        var rows = SeedModelFixture.rows
        rows[2].salary = "nine hundred"
        try SeedModelFixture.write(to: employees.storePath, rows: rows)
        let before = try fileBytes(employees.storePath)
        let result = try employees.runInStore("list")
        #expect(result.status != 0)
        #expect(result.standardError.contains("Employee/3"), "\(result.standardError)")
        #expect(result.standardError.contains("nine hundred"), "\(result.standardError)")
        #expect(result.standardError.contains("1.0.0 → 2.0.0"), "\(result.standardError)")
        #expect(try fileBytes(employees.storePath) == before)
    }

    @Test func aDryRunPrintsTheStagesAndChangesNothing() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        try FileManager.default.copyItem(
            at: Self.fixture, to: URL(fileURLWithPath: employees.storePath))
        let before = try fileBytes(employees.storePath)
        let result = try employees.runInStore("migrate", "--dry-run")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardOutput == """
                store at version 1.0.0, newest version 3.0.0
                stage custom 1.0.0 → 2.0.0: change 4 Employee
                stage lightweight 2.0.0 → 3.0.0: rewrites no object

                """)
        #expect(try fileBytes(employees.storePath) == before)
        // Then the migration itself, and a dry run with nothing left to do.
        #expect(try employees.runInStore("migrate").status == 0)
        let again = try employees.runInStore("migrate", "--dry-run")
        #expect(again.standardOutput.contains("store at version 3.0.0"))
        #expect(again.standardOutput.contains("nothing to migrate"))
    }

    @Test func aDryRunSaysWhatWouldRefuse() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        var rows = SeedModelFixture.rows
        rows[1].salary = "-5"
        try SeedModelFixture.write(to: employees.storePath, rows: rows)
        let before = try fileBytes(employees.storePath)
        let result = try employees.runInStore("migrate", "--dry-run")
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("refused: "), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("Employee/2 has the salary \"-5\""))
        #expect(try fileBytes(employees.storePath) == before)
    }

    /// Set `LOGBOOK_WRITE_FIXTURES=1` to write `Fixtures/SeedModel.logbook` anew.
    @Test func writeTheFixture() throws {
        guard ProcessInfo.processInfo.environment["LOGBOOK_WRITE_FIXTURES"] == "1" else { return }
        try? FileManager.default.removeItem(at: Self.fixture)
        try SeedModelFixture.write(to: Self.fixture.path, rows: SeedModelFixture.rows)
    }

    private func fileBytes(_ path: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            files[name] = FileManager.default.contents(atPath: path + "/" + name)
        }
        return files
    }
}

/// Writes a store of the seed's own model (``EmployeesSchemaV1``): the code behind the
/// committed fixture.
enum SeedModelFixture {
    struct Row {
        var name: String
        var designation: String
        var salary: String
    }

    static let rows = [
        Row(name: "Ann Lee", designation: "Engineer", salary: "3000000"),
        Row(name: "Kevin Park", designation: "Designer", salary: " 1500000"),
        Row(name: "Maria Garcia", designation: "Support", salary: "900000 "),
        Row(name: "李小龙", designation: "Martial artist", salary: "1200000"),
    ]

    static func write(to path: String, rows: [Row]) throws {
        let container = try ModelContainer(
            for: EmployeesSchemaV1.models,
            configuration: ModelConfiguration(url: URL(fileURLWithPath: path)))
        let context = ModelContext(container)
        for row in rows {
            let employee = EmployeesSchemaV1.Employee()
            employee.employee_Name = row.name
            employee.employee_Designation = row.designation
            employee.employee_Salary = row.salary
            context.insert(employee)
        }
        try context.save()
        try container.close()
    }
}
