import Foundation
import Logbook
import Testing

@testable import employees

/// The repository the app ships, on a real store: employees.
@Suite struct RepositoryTests {
    private func seeded() throws -> (TemporaryRepository, [EmployeeRecord]) {
        let store = try TemporaryRepository()
        let added = try DemoStory.employeesWithoutCompanies.map { try store.repository.add($0) }
        return (store, added)
    }

    @Test func addReturnsDistinctIDsAndListKeepsTheOrderOfAdding() throws {
        let (store, added) = try seeded()
        #expect(Set(added.map(\.id)).count == 3)
        #expect(try store.repository.all() == added)
        #expect(try store.repository.list(EmployeeQuery(descending: true)) == added.reversed())
    }

    /// An update moves an employee's record to the end of the log; the list still ascends by
    /// id (also in the pages of a window), and shows a company's name as it is now.
    @Test func listAscendsByIDAfterAnUpdateAndShowsTheCompanyAsRenamed() throws {
        let (store, added) = try seeded()
        let repository = store.repository!
        _ = try repository.addCompany(CompanyDraft(name: "Acme"))
        _ = try repository.update(id: added[0].id, with: EmployeeChanges(company: .assign("Acme")))
        #expect(try repository.all().map(\.id) == added.map(\.id))
        #expect(
            try repository.list(EmployeeQuery(descending: true)).map(\.id)
                == added.reversed().map(\.id))
        _ = try repository.updateCompany("Acme", with: CompanyChanges(name: "Acme Ltd"))
        let acme = CompanyLink(id: "Company/1", name: "Acme Ltd")
        #expect(try repository.all().map(\.company) == [acme, nil, nil])
        let window = try repository.employeeWindow(filter: nil)
        #expect(try window.rows(0..<3).map(\.id) == added.map(\.id))
        #expect(try window.rows(0..<1).first?.company == acme)
    }

    /// Updates move records to the end of the log, out of key order (here every one but the
    /// last comes late, after a greater key): each late record is given in its turn, kept from
    /// the first pass or read by key, so every employee comes once, in ascending key order,
    /// also after more are added.
    @Test func recordsInKeyOrderComeOnceWhateverTheLogOrder() throws {
        let (store, added) = try seeded()
        let repository = store.repository!
        for employee in added.reversed() {
            _ = try repository.update(id: employee.id, with: EmployeeChanges(salary: 7))
        }
        for kept in [0, 1, 100] {
            var seen: [String] = []
            try repository.forEachRecordInKeyOrder(keptLate: kept) { seen.append($0.id) }
            #expect(seen == added.map(\.id), "\(kept) kept")
        }
        let more = try DemoStory.employeesWithoutCompanies.map { try repository.add($0) }
        _ = try repository.update(id: added[1].id, with: EmployeeChanges(salary: 8))
        try repository.delete(id: more[0].id)
        var seen: [String] = []
        try repository.forEachRecordInKeyOrder { seen.append($0.id) }
        #expect(seen == (added + more.dropFirst()).map(\.id))
        #expect(try repository.all().map(\.id) == seen)
        #expect(try repository.all().map(\.salary) == [7, 8, 7] + more.dropFirst().map(\.salary))
    }

    @Test func filterAndSort() throws {
        let (store, _) = try seeded()
        let repository = store.repository!
        let query = EmployeeQuery(filter: "salary > 1000000", sortKey: .salary)
        #expect(try repository.list(query).map(\.name) == ["Kevin Park", "Ann Lee"])
        let byName = EmployeeQuery(sortKey: .name, descending: true)
        #expect(
            try repository.list(byName).map(\.name) == ["Maria Garcia", "Kevin Park", "Ann Lee"])
        let both = EmployeeQuery(filter: "designation == 'Engineer' || salary < 1000000")
        #expect(try repository.list(both).map(\.name) == ["Ann Lee", "Maria Garcia"])
    }

    @Test func updateChangesOnlyTheGivenFields() throws {
        let (store, added) = try seeded()
        let ann = added[0]
        let updated = try store.repository.update(
            id: ann.id, with: EmployeeChanges(salary: 3_000_000))
        #expect(
            updated
                == EmployeeRecord(
                    id: ann.id, name: "Ann Lee", designation: "Engineer", salary: 3_000_000))
        #expect(try store.repository.employee(id: ann.id) == updated)
    }

    @Test func deletedAndUnknownIDsAreUnknownEmployees() throws {
        let (store, added) = try seeded()
        let repository = store.repository!
        try repository.delete(id: added[1].id)
        #expect(try repository.all().count == 2)
        for id in [added[1].id, "nonsense", "Employee/999", "Other/1", "Company/1"] {
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

    @Test func changesSurviveReopening() throws {
        let (store, added) = try seeded()
        let ids = added.map(\.id)
        _ = try store.repository.addCompany(CompanyDraft(name: "Acme"))
        _ = try store.repository.update(
            id: ids[0], with: EmployeeChanges(salary: 3_000_000, company: .assign("Acme")))
        try store.repository.delete(id: ids[1])
        store.close()
        try store.reopen()
        #expect(try store.repository.all().map(\.id) == [ids[0], ids[2]])
        let ann = try store.repository.employee(id: ids[0])
        #expect(ann.salary == 3_000_000)
        #expect(ann.company == CompanyLink(id: "Company/1", name: "Acme"))
    }

    @Test func aSecondRepositoryOnTheSameStoreIsLocked() throws {
        let store = try TemporaryRepository()
        #expect(throws: EmployeesError.storeLocked(path: store.path)) {
            _ = try LogbookEmployeeRepository(path: store.path)
        }
    }
}
