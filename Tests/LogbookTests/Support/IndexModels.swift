import Foundation
import Logbook

/// A member of a ``Team``, with an index on each of name, designation and salary, a compound
/// index (designation, salary) and a unique email: the models of the index tests.
final class Staff: PersistentModel {
    @Attribute(.indexed) var name = ""
    @Attribute(.indexed) var designation = ""
    @Attribute(.indexed) var salary: Int64 = 0
    @Attribute(.unique) var email = ""
    @Relationship var team: Team? = nil

    static var indexes: [ModelIndex<Staff>] { [.index(\.designation, \.salary)] }

    init() {}

    convenience init(
        _ name: String, designation: String = "", salary: Int64 = 0, email: String? = nil,
        team: Team? = nil
    ) {
        self.init()
        self.name = name
        self.designation = designation
        self.salary = salary
        self.email = email ?? "\(name.lowercased())@example.com"
        self.team = team
    }
}

/// A team of ``Staff``.
final class Team: PersistentModel {
    @Attribute(.indexed) var name = ""
    @Attribute var size: Int64 = 0
    @Relationship(inverse: \Staff.team) var members: [Staff] = []

    init() {}

    convenience init(_ name: String, size: Int64 = 0) {
        self.init()
        self.name = name
        self.size = size
    }
}

/// A member identified by first and last name together (a compound unique constraint), whose
/// inserts update the existing member of the same name (upsert).
final class Member: PersistentModel {
    @Attribute var first = ""
    @Attribute var last = ""
    @Attribute var age: Int64 = 0
    @Attribute var nickname: String? = nil

    static var indexes: [ModelIndex<Member>] { [.unique(\.first, \.last)] }
    static var uniquePolicy: UniquePolicy { .upsert }

    init() {}

    convenience init(_ first: String, _ last: String, age: Int64 = 0) {
        self.init()
        self.first = first
        self.last = last
        self.age = age
    }
}

/// A user with a unique email whose inserts update the existing user (upsert).
final class Account: PersistentModel {
    @Attribute(.unique) var email = ""
    @Attribute var name = ""
    @Attribute var visits: Int64 = 0

    static var uniquePolicy: UniquePolicy { .upsert }

    init() {}

    convenience init(_ email: String, name: String = "", visits: Int64 = 0) {
        self.init()
        self.email = email
        self.name = name
        self.visits = visits
    }
}
