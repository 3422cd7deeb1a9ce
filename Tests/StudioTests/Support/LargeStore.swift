import Foundation
import Logbook
import TestSupport

/// Large stores of employees for the browser and load tests: names from a small list of first
/// and last names, designations from a list (indexed), salaries spread over a range; written in
/// saves of 10,000, so the history has many saves.
enum LargeStore {
    static let firstNames = [
        "Ann", "Bo", "Chen", "Dara", "Eli", "Farah", "Goran", "Hana", "Ines", "Jun", "Kofi", "Lena",
        "Mateo", "Nia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen",
        "Yara", "Zoe",
    ]
    static let lastNames = [
        "Lee", "Garcia", "Okafor", "Novak", "Silva", "Kim", "Haddad", "Berg", "Rossi", "Tanaka",
        "Moreau", "Singh", "Costa", "Ivanova", "Walsh", "Nakamura", "Osei", "Larsen", "Duarte",
    ]
    static let designations = [
        "Engineer", "Manager", "Designer", "Analyst", "Tester", "Director", "Intern", "Architect",
        "Support",
    ]

    /// The values of employee `i` (from 0).
    static func employee(_ i: Int) -> (name: String, designation: String, salary: Int64) {
        let name = firstNames[i % firstNames.count] + " " + lastNames[(i / 7) % lastNames.count]
        let designation = designations[(i * 7 + i / 13) % designations.count]
        let salary = Int64(30_000 + (i * 7_919) % 170_000)
        return (name, designation, salary)
    }

    /// A store of `count` employees at `path` (the ``Employee`` model of TestSupport).
    static func employees(_ count: Int, at path: String) throws {
        let container = try ModelContainer(for: [Employee.self], at: URL(fileURLWithPath: path))
        let context = ModelContext(container)
        context.author = "loader"
        var i = 0
        while i < count {
            for _ in 0..<min(10_000, count - i) {
                let values = employee(i)
                context.insert(
                    Employee(
                        name: values.name, designation: values.designation, salary: values.salary))
                i += 1
            }
            try context.save()
        }
        try container.close()
    }
}
