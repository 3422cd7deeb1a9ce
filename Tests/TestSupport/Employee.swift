import Foundation
import Logbook

/// The seed app's employee: name, designation, salary. Shared by tests, CLI tests and examples.
public final class Employee: PersistentModel {
    @Attribute public var name = ""
    @Attribute(.indexed) public var designation = ""
    @Attribute public var salary: Int64 = 0

    /// An employee with empty values.
    public init() {}

    /// An employee with the given values.
    public convenience init(name: String, designation: String = "", salary: Int64 = 0) {
        self.init()
        self.name = name
        self.designation = designation
        self.salary = salary
    }
}

/// A model with optional attributes of every type, for optionals and type coverage.
public final class Contact: PersistentModel {
    @Attribute(.unique) public var email = ""
    @Attribute public var nickname: String? = nil
    @Attribute public var age: Int? = nil
    @Attribute public var score: Double = 0
    @Attribute public var active = true
    @Attribute public var birthday: Date? = nil
    @Attribute public var avatar: Data? = nil
    @Attribute public var token: UUID? = nil

    /// A contact with defaults.
    public init() {}

    /// A contact with an email and optional nickname and age.
    public convenience init(email: String, nickname: String? = nil, age: Int? = nil) {
        self.init()
        self.email = email
        self.nickname = nickname
        self.age = age
    }
}
