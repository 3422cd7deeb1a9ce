import Logbook
import Synchronization

/// The seed's own model, the Core Data one of its CoreDataManager: `employee_Name`,
/// `employee_Designation`, and the salary as text (`NSString *employee_Salary`).
enum EmployeesSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Employee.self] }

    final class Employee: PersistentModel {
        static let entityName = "Employee"
        @Attribute var employee_Name = ""
        @Attribute var employee_Designation = ""
        @Attribute var employee_Salary = ""
        init() {}
    }
}

/// The app before companies existed: the seed's fields renamed, the salary a number.
enum EmployeesSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Employee.self] }

    final class Employee: PersistentModel {
        static let entityName = "Employee"
        @Attribute(originalName: "employee_Name") var name = ""
        @Attribute(.indexed, originalName: "employee_Designation") var designation = ""
        @Attribute var salary: Int64 = 0
        init() {}
    }
}

/// Today's model: employees belong to companies.
enum EmployeesSchemaV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Employee.self, Company.self] }
}

/// A salary of the seed's model that is not a whole number ≥ 0.
struct SeedSalaryError: Error, CustomStringConvertible {
    var object: String
    var text: String
    var description: String {
        "\(object) has the salary \"\(text)\", which is not a whole number ≥ 0; correct it with the app that wrote the store, then open it again"
    }
}

/// How a store of any version of the app's model becomes today's: the seed's text salaries are
/// parsed (one that does not parse refuses the migration, naming the employee, and changes
/// nothing), then companies are added.
enum EmployeesMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [EmployeesSchemaV1.self, EmployeesSchemaV2.self, EmployeesSchemaV3.self]
    }
    static var stages: [MigrationStage] { [numericSalaries, companies] }

    /// The salaries parsed before the schema changes, set after it.
    private static let parsed = Mutex<[PersistentIdentifier: Int64]>([:])

    static let numericSalaries = MigrationStage.custom(
        fromVersion: EmployeesSchemaV1.self, toVersion: EmployeesSchemaV2.self,
        willMigrate: { context in
            var salaries: [PersistentIdentifier: Int64] = [:]
            try context.enumerate(FetchDescriptor<EmployeesSchemaV1.Employee>()) { employee in
                let text = employee.employee_Salary
                guard let value = try? SalaryParser.parse(text) else {
                    throw SeedSalaryError(
                        object: employee.persistentModelID.description, text: text)
                }
                salaries[employee.persistentModelID] = value
            }
            parsed.withLock { $0 = salaries }
        },
        didMigrate: { context in
            let salaries = parsed.withLock { $0 }
            try context.enumerate(FetchDescriptor<EmployeesSchemaV2.Employee>()) { employee in
                employee.salary = salaries[employee.persistentModelID] ?? 0
            }
            parsed.withLock { $0 = [:] }
        })

    static let companies = MigrationStage.lightweight(
        fromVersion: EmployeesSchemaV2.self, toVersion: EmployeesSchemaV3.self)
}
