import Foundation
import Logbook

// The models of the committed store `Tests/Fixtures/SchemaFormats1and2.logbook` (see its
// README): every attribute type schema formats 1 and 2 know, each required and optional, a
// to-one relationship and its to-many inverse, single, compound and unique indexes, and two
// schema versions. `V1` classes wrote schema version 1; the others are version 2 (one more
// attribute and a compound index). Never change them: the fixture is what they wrote.

/// An office of ``FixtureWorker``s, as schema version 2 has it.
final class FixtureOffice: PersistentModel {
    @Attribute(.unique) var name = ""
    @Attribute var city: String? = nil
    @Relationship(deleteRule: .deny, inverse: \FixtureWorker.office)
    var workers: [FixtureWorker] = []
    init() {}
}

/// A worker with every attribute type, as schema version 2 has it.
final class FixtureWorker: PersistentModel {
    @Attribute var name = ""
    @Attribute(.indexed) var role = ""
    @Attribute var salary: Int64 = 0
    @Attribute var level = 1
    @Attribute var rating = 0.0
    @Attribute var active = true
    @Attribute var hired = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var photo = Data()
    @Attribute var badge = FixtureValues.zeroUUID
    @Attribute var nickname: String? = nil
    @Attribute var age: Int64? = nil
    @Attribute var bonus: Double? = nil
    @Attribute var remote: Bool? = nil
    @Attribute var left: Date? = nil
    @Attribute var signature: Data? = nil
    @Attribute(.unique) var token: UUID? = nil
    @Relationship var office: FixtureOffice? = nil
    /// Added by schema version 2.
    @Attribute var note = "none"

    static var indexes: [ModelIndex<FixtureWorker>] { [.index(\.role, \.salary)] }

    init() {}
}

/// ``FixtureOffice`` as schema version 1 had it.
final class FixtureOfficeV1: PersistentModel {
    static var entityName: String { "FixtureOffice" }
    @Attribute(.unique) var name = ""
    @Attribute var city: String? = nil
    @Relationship(deleteRule: .deny, inverse: \FixtureWorkerV1.office)
    var workers: [FixtureWorkerV1] = []
    init() {}
}

/// ``FixtureWorker`` as schema version 1 had it: no `note`, no compound index.
final class FixtureWorkerV1: PersistentModel {
    static var entityName: String { "FixtureWorker" }
    @Attribute var name = ""
    @Attribute(.indexed) var role = ""
    @Attribute var salary: Int64 = 0
    @Attribute var level = 1
    @Attribute var rating = 0.0
    @Attribute var active = true
    @Attribute var hired = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var photo = Data()
    @Attribute var badge = FixtureValues.zeroUUID
    @Attribute var nickname: String? = nil
    @Attribute var age: Int64? = nil
    @Attribute var bonus: Double? = nil
    @Attribute var remote: Bool? = nil
    @Attribute var left: Date? = nil
    @Attribute var signature: Data? = nil
    @Attribute(.unique) var token: UUID? = nil
    @Relationship var office: FixtureOfficeV1? = nil
    init() {}
}

/// The values the fixture holds, and how it was written.
enum FixtureValues {
    static let zeroUUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    static func uuid(_ n: UInt8) -> UUID {
        UUID(uuid: (0xF1, 0x7E, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, n))
    }

    /// One worker as the fixture holds it (the stored fields, attributes only).
    struct Worker: Equatable {
        var name: String
        var role: String
        var salary: Int64
        var level: Int
        var rating: Double
        var active: Bool
        var hired: Date
        var photo: Data
        var badge: UUID
        var nickname: String?
        var age: Int64?
        var bonus: Double?
        var remote: Bool?
        var left: Date?
        var signature: Data?
        var token: UUID?
        var office: String?
        var note: String
    }

    /// Writes the fixture into the empty directory `url` (a store directory): schema version 1,
    /// saves through its classes, then version 2 and more saves, an author and a retention.
    static func write(to url: URL) throws {
        do {
            let container = try ModelContainer(
                for: [FixtureOfficeV1.self, FixtureWorkerV1.self], at: url)
            let context = ModelContext(container)
            let pune = FixtureOfficeV1()
            pune.name = "Pune"
            pune.city = "Pune, MH"
            let oslo = FixtureOfficeV1()
            oslo.name = "Oslo"
            context.insert(pune)
            context.insert(oslo)
            let ann = FixtureWorkerV1()
            ann.name = "Ann Lee"
            ann.role = "Engineer"
            ann.salary = 2_000_000
            ann.level = 3
            ann.rating = 4.75
            ann.hired = Date(timeIntervalSinceReferenceDate: 86_400.25)
            ann.photo = Data([0, 1, 0xFE, 0xFF])
            ann.badge = uuid(1)
            ann.nickname = "ann"
            ann.age = 41
            ann.bonus = -0.0
            ann.remote = false
            ann.signature = Data()
            ann.token = uuid(2)
            ann.office = pune
            let li = FixtureWorkerV1()
            li.name = "李小龙"
            li.role = "Martial artist"
            li.salary = Int64.max
            li.level = Int.min
            li.rating = .infinity
            li.active = false
            li.hired = Date(timeIntervalSinceReferenceDate: -1_000_000_000.5)
            li.nickname = "e\u{301}\u{0}\"\\\n"
            li.age = Int64.min
            li.bonus = .nan
            li.remote = true
            li.left = Date(timeIntervalSinceReferenceDate: 700_000_000)
            li.office = oslo
            let temp = FixtureWorkerV1()
            temp.name = "Temp"
            temp.role = "Clerk"
            temp.salary = 1
            context.insert(ann)
            context.insert(li)
            context.insert(temp)
            try context.save()
            temp.salary = 2
            ann.rating = -4.5e-300
            try context.save()
            context.delete(temp)
            try context.save()
            try container.close()
        }
        let container = try ModelContainer(
            for: [FixtureOffice.self, FixtureWorker.self], at: url)
        let context = ModelContext(container)
        context.author = "fixture"
        let offices = try context.fetch(FetchDescriptor<FixtureOffice>())
        let oslo = try requireValue(offices.first { $0.name == "Oslo" })
        let kim = FixtureWorker()
        kim.name = "Kim"
        kim.role = "Engineer"
        kim.salary = -5
        kim.note = "joined after version 2"
        kim.office = oslo
        context.insert(kim)
        let bare = FixtureWorker()
        bare.name = ""
        context.insert(bare)
        try context.save()
        try container.setHistoryRetention(.saves(100))
        try container.close()
    }

    /// The workers the fixture holds, by name.
    static let workers: [Worker] = [
        Worker(
            name: "", role: "", salary: 0, level: 1, rating: 0, active: true,
            hired: Date(timeIntervalSinceReferenceDate: 0), photo: Data(), badge: zeroUUID,
            office: nil, note: "none"),
        Worker(
            name: "Ann Lee", role: "Engineer", salary: 2_000_000, level: 3, rating: -4.5e-300,
            active: true, hired: Date(timeIntervalSinceReferenceDate: 86_400.25),
            photo: Data([0, 1, 0xFE, 0xFF]), badge: uuid(1), nickname: "ann", age: 41,
            bonus: -0.0, remote: false, signature: Data(), token: uuid(2), office: "Pune",
            note: "none"),
        Worker(
            name: "Kim", role: "Engineer", salary: -5, level: 1, rating: 0, active: true,
            hired: Date(timeIntervalSinceReferenceDate: 0), photo: Data(), badge: zeroUUID,
            office: "Oslo", note: "joined after version 2"),
        Worker(
            name: "李小龙", role: "Martial artist", salary: Int64.max, level: Int.min,
            rating: .infinity, active: false,
            hired: Date(timeIntervalSinceReferenceDate: -1_000_000_000.5), photo: Data(),
            badge: zeroUUID, nickname: "e\u{301}\u{0}\"\\\n", age: Int64.min, bonus: .nan,
            remote: true, left: Date(timeIntervalSinceReferenceDate: 700_000_000),
            office: "Oslo", note: "none"),
    ]
}

/// `value`, or an error saying it was missing (no `try!` in fixture code).
func requireValue<T>(_ value: T?) throws -> T {
    guard let value else { throw FixtureMissing() }
    return value
}

struct FixtureMissing: Error {}
