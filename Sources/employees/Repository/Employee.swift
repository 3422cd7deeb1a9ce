import Logbook

/// The app's model: the seed's `Employee` entity, stored by Logbook.
///
/// The entity name (`Employee`) names the store's keyspace and starts every id (`Employee/7`),
/// so it must stay stable. `company` was added in the app's second schema version; stores
/// written before it open by lightweight migration, their employees without a company.
final class Employee: PersistentModel {
    /// Spelled out rather than derived from the class name (which costs a reflection on every
    /// use, and Logbook asks for it on hot paths).
    static let entityName = "Employee"

    /// Searchable (`employees list --search`, `/` in the list): a store written before it
    /// was gains the flag, and its text index, by lightweight migration.
    @Attribute(.searchable) var name = ""
    @Attribute(.indexed) var designation = ""
    @Attribute var salary: Int64 = 0
    @Relationship var company: Company? = nil

    init() {}
}

/// The seed's `Company` (`@class Company` in its Employee.h): employees belong to one.
///
/// Deleting a company that still has employees is refused by the store (the `deny` rule);
/// the app moves or releases them first when asked to.
final class Company: PersistentModel {
    static let entityName = "Company"

    @Attribute(.unique) var name = ""
    @Attribute var city: String? = nil
    @Relationship(deleteRule: .deny, inverse: \Employee.company) var employees: [Employee] = []

    init() {}
}
