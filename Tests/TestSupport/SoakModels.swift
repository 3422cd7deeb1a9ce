import Foundation
import Logbook

/// The soak's company: a code, a name, and its employees (nullified when it is deleted).
package final class SoakCompany: PersistentModel {
    @Attribute(.unique) package var code: Int64 = 0
    @Attribute package var name = ""
    @Relationship(deleteRule: .nullify, inverse: \SoakEmployee.company)
    package var employees: [SoakEmployee] = []

    package init() {}
}

/// The soak's employee: a code, a name, a salary (indexed, for the batch operations' predicates)
/// and a company.
package final class SoakEmployee: PersistentModel {
    @Attribute(.unique) package var code: Int64 = 0
    @Attribute package var name = ""
    @Attribute(.indexed) package var salary: Int64 = 0
    @Relationship package var company: SoakCompany? = nil

    package init() {}
}
