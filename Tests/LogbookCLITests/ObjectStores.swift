import Foundation
import LogStore
import Logbook
import TestSupport

/// Stores written through the object layer, for the tests of decoding commands.
enum ObjectStores {
    /// Employees Ann (Engineer, 2,000,000), Bo (Manager, 500) and Cy (Engineer, 1,500) saved
    /// together; then Bo's salary raised to 900; then Cy deleted.
    static func employees(at path: String) throws {
        let container = try ModelContainer(for: [Employee.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        let ann = Employee(name: "Ann", designation: "Engineer", salary: 2_000_000)
        let bo = Employee(name: "Bo", designation: "Manager", salary: 500)
        let cy = Employee(name: "Cy", designation: "Engineer", salary: 1_500)
        for employee in [ann, bo, cy] { context.insert(employee) }
        try context.save()
        bo.salary = 900
        try context.save()
        context.delete(cy)
        try context.save()
        try container.close()
    }

    /// Contacts covering every attribute type, optionals set and unset, and text that needs
    /// quoting in JSON, CSV and SQL.
    static func contacts(at path: String) throws {
        let container = try ModelContainer(for: [Contact.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        let full = Contact(
            email: "ann@example.com", nickname: "O'Brien, \"Annie\"\nsecond line", age: 41)
        full.score = 2.5
        full.active = false
        full.birthday = Date(timeIntervalSince1970: 1_000_000_000.25)
        full.avatar = Data([0x00, 0x01, 0xFE, 0xFF])
        full.token = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        let empty = Contact(email: "bo@example.com")
        context.insert(full)
        context.insert(empty)
        try context.save()
        try container.close()
    }
}
