import Foundation
import Logbook

/// A company employing ``Employee``s through ``StaffedEmployee``: the relationship examples.
public final class Company: PersistentModel {
    @Attribute public var name = ""
    @Relationship(deleteRule: .cascade, inverse: \StaffedEmployee.company)
    public var employees: [StaffedEmployee] = []

    /// A company without a name.
    public init() {}

    /// A company called `name`.
    public convenience init(name: String) {
        self.init()
        self.name = name
    }
}

/// An employee that belongs to a ``Company``.
public final class StaffedEmployee: PersistentModel {
    @Attribute public var name = ""
    @Attribute public var salary: Int64 = 0
    @Relationship public var company: Company? = nil

    /// An employee without a name.
    public init() {}

    /// An employee called `name`.
    public convenience init(name: String, salary: Int64 = 0, company: Company? = nil) {
        self.init()
        self.name = name
        self.salary = salary
        self.company = company
    }
}
