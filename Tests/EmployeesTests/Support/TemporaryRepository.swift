import Foundation
import TestSupport

@testable import employees

/// A ``LogbookEmployeeRepository`` on a fresh store in a temporary directory: what the
/// screen and command tests run on (the app has no other repository).
final class TemporaryRepository {
    let directory = TemporaryDirectory("employees-repository")
    private(set) var repository: LogbookEmployeeRepository!

    /// The store's path.
    var path: String { directory.child("Employees.logbook") }

    /// An empty store, or one holding `companies` and then `employees`.
    init(companies: [CompanyDraft] = [], employees: [EmployeeDraft] = []) throws {
        repository = try LogbookEmployeeRepository(path: path)
        for company in companies { _ = try repository.addCompany(company) }
        for employee in employees { _ = try repository.add(employee) }
    }

    /// Closes the store (so another process or repository can open it).
    func close() { repository = nil }

    /// Opens the store again after ``close()``.
    func reopen() throws { repository = try LogbookEmployeeRepository(path: path) }

    deinit {
        repository = nil
        directory.remove()
    }
}

extension DemoStory {
    /// The seed's employees without their companies.
    static var employeesWithoutCompanies: [EmployeeDraft] {
        employees.map {
            EmployeeDraft(name: $0.name, designation: $0.designation, salary: $0.salary)
        }
    }
}
