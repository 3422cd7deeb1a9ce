import Foundation
import Testing

@testable import employees

/// The same expectations on both repositories, so the in-memory one the screen tests use
/// behaves like the Logbook one the app ships with.
@Suite struct RepositoryContractTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case inMemory, logbook
        var testDescription: String { rawValue }
    }

    /// A fresh, empty repository and a clean-up for it.
    private func make(_ kind: Kind) throws -> (any EmployeeRepository, () -> Void) {
        switch kind {
        case .inMemory:
            return (InMemoryEmployeeRepository(), {})
        case .logbook:
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("employees-contract-\(UUID().uuidString)")
            let repository = try LogbookEmployeeRepository(
                path: directory.appendingPathComponent("Employees.logbook").path)
            return (repository, { try? FileManager.default.removeItem(at: directory) })
        }
    }

    private func seed(_ repository: any EmployeeRepository) throws -> [EmployeeRecord] {
        try DemoStory.employees.map { try repository.add($0) }
    }

    @Test(arguments: Kind.allCases)
    func addReturnsDistinctIDsAndListKeepsTheOrderOfAdding(_ kind: Kind) throws {
        let (repository, cleanUp) = try make(kind)
        defer { cleanUp() }
        let added = try seed(repository)
        #expect(Set(added.map(\.id)).count == 3)
        #expect(try repository.all() == added)
        #expect(try repository.list(EmployeeQuery(descending: true)) == added.reversed())
    }

    @Test(arguments: Kind.allCases)
    func filterAndSort(_ kind: Kind) throws {
        let (repository, cleanUp) = try make(kind)
        defer { cleanUp() }
        _ = try seed(repository)
        let query = EmployeeQuery(filter: "salary > 1000000", sortKey: .salary)
        #expect(try repository.list(query).map(\.name) == ["Kevin Park", "Ann Lee"])
        let byName = EmployeeQuery(sortKey: .name, descending: true)
        #expect(
            try repository.list(byName).map(\.name) == ["Maria Garcia", "Kevin Park", "Ann Lee"])
        let both = EmployeeQuery(filter: "designation == 'Engineer' || salary < 1000000")
        #expect(try repository.list(both).map(\.name) == ["Ann Lee", "Maria Garcia"])
    }

    @Test(arguments: Kind.allCases)
    func badFiltersAreInvalidFilterErrors(_ kind: Kind) throws {
        let (repository, cleanUp) = try make(kind)
        defer { cleanUp() }
        for filter in ["salary >", "age > 3"] {
            #expect {
                _ = try repository.list(EmployeeQuery(filter: filter))
            } throws: { error in
                guard case .invalidFilter(let text, _) = error as? EmployeesError else {
                    return false
                }
                return text == filter
            }
        }
    }

    @Test(arguments: Kind.allCases)
    func updateChangesOnlyTheGivenFields(_ kind: Kind) throws {
        let (repository, cleanUp) = try make(kind)
        defer { cleanUp() }
        let ann = try seed(repository)[0]
        let updated = try repository.update(id: ann.id, with: EmployeeChanges(salary: 3_000_000))
        #expect(
            updated
                == EmployeeRecord(
                    id: ann.id, name: "Ann Lee", designation: "Engineer", salary: 3_000_000))
        #expect(try repository.employee(id: ann.id) == updated)
    }

    @Test(arguments: Kind.allCases)
    func deletedAndUnknownIDsAreUnknownEmployees(_ kind: Kind) throws {
        let (repository, cleanUp) = try make(kind)
        defer { cleanUp() }
        let kevin = try seed(repository)[1]
        try repository.delete(id: kevin.id)
        #expect(try repository.all().count == 2)
        for id in [kevin.id, "nonsense", "Employee/999", "Other/1"] {
            #expect(throws: EmployeesError.unknownEmployee(id: id)) {
                try repository.employee(id: id)
            }
            #expect(throws: EmployeesError.unknownEmployee(id: id)) {
                try repository.delete(id: id)
            }
            #expect(throws: EmployeesError.unknownEmployee(id: id)) {
                try repository.update(id: id, with: EmployeeChanges(name: "x"))
            }
        }
    }

    @Test func logbookChangesSurviveReopening() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("employees-contract-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Employees.logbook").path
        var ids: [String] = []
        do {
            let repository = try LogbookEmployeeRepository(path: path)
            ids = try seed(repository).map(\.id)
            _ = try repository.update(id: ids[0], with: EmployeeChanges(salary: 3_000_000))
            try repository.delete(id: ids[1])
        }
        let reopened = try LogbookEmployeeRepository(path: path)
        #expect(try reopened.all().map(\.id) == [ids[0], ids[2]])
        #expect(try reopened.employee(id: ids[0]).salary == 3_000_000)
    }

    @Test func aSecondRepositoryOnTheSameStoreIsLocked() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("employees-contract-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Employees.logbook").path
        let first = try LogbookEmployeeRepository(path: path)
        #expect(throws: EmployeesError.storeLocked(path: path)) {
            _ = try LogbookEmployeeRepository(path: path)
        }
        _ = first
    }
}
