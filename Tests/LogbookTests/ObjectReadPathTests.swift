import Foundation
import Logbook
import TestSupport
import Testing

/// The object layer's fast paths (issue 12): strings decoded in place, point reads through the
/// engine's non-generic read, and deletes that find the object's registration through the
/// context's bindings. Each must behave as the general path did.
@Suite struct ObjectReadPathTests {
    /// Around the 15-byte small-string limit, ASCII and not, and longer.
    static let names = [
        "", "a", "fifteen-bytes!!", "sixteen-bytes!!!", "héllo wörld", "ééééééé",
        "éééééééa", "日本語のテキスト", "👩‍💻 engineer", String(repeating: "x", count: 300),
    ]

    @Test func stringsOfEveryLengthReadBackIdentical() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var ids: [PersistentIdentifier] = []
        do {
            let container = try fixture.open()
            let context = ModelContext(container)
            for name in Self.names {
                let employee = Employee(name: name, designation: name, salary: 1)
                context.insert(employee)
                ids.append(employee.persistentModelID)
            }
            try context.save()
            try container.close()
        }
        let container = try fixture.open()
        let byID = ModelContext(container)
        for (id, name) in zip(ids, Self.names) {
            let employee = try #require(try byID.model(for: id, as: Employee.self))
            #expect(employee.name == name)
            #expect(employee.designation == name)
            #expect(employee.name.utf8.count == name.utf8.count)
        }
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Employee>())
        #expect(fetched.map(\.name) == Self.names)
        // The strings compare as the ones written do, in predicates too.
        for name in Self.names {
            let found = try ModelContext(container).fetch(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.name == name }))
            #expect(found.map(\.name) == [name])
        }
        try container.close()
    }

    /// A scan compares ASCII constants by bytes and leaves strings with other bytes to
    /// Swift's equality, which is canonical: U+212A KELVIN SIGN equals "K". The non-ASCII byte
    /// sits before, inside and after the first eight bytes.
    @Test func scanEqualityOfAnASCIIConstantIsCanonical() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = ModelContext(container)
        let designations = [
            "\u{212A}elvin-engineer", "Kelvin-engin\u{212A}er", "Kelvin-engineer",
            "Kelvin-engineer\u{212A}", "kelvin-engineer", "Kelvin-engineers",
        ]
        for designation in designations {
            context.insert(Employee(name: designation, designation: designation, salary: 1))
        }
        try context.save()
        let target = "Kelvin-engineer"
        let expected = designations.filter { $0 == target }
        #expect(expected.count == 2)
        let equal = try ModelContext(container).fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == target }))
        #expect(equal.map(\.designation) == expected)
        let notEqual = try ModelContext(container).fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.designation != target }))
        #expect(notEqual.map(\.designation) == designations.filter { $0 != target })
        #expect(
            try ModelContext(container).fetchCount(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == target }))
                == 2)
    }

    @Test func pointReadOfAMissingOrDeletedObjectIsNil() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let context = ModelContext(container)
        let ann = Employee(name: "Ann")
        context.insert(ann)
        try context.save()
        let id = ann.persistentModelID
        let missing = PersistentIdentifier(entityName: "Employee", primaryKey: id.primaryKey + 99)
        #expect(try ModelContext(container).model(for: missing, as: Employee.self) == nil)
        context.delete(ann)
        try context.save()
        #expect(try ModelContext(container).model(for: id, as: Employee.self) == nil)
        try container.close()
        #expect(throws: LogbookError.self) { try ModelContext(container).model(for: id) }
    }

    /// A point read registers its object before the record arrives; a read that finds no
    /// record, or one it cannot decode, must leave nothing registered behind it. Asked again in
    /// the same context, each gives the same answer, and the context's counts stay right.
    @Test func aFailedPointReadLeavesNothingRegistered() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let writer = ModelContext(container)
        let ann = Employee(name: "Ann", designation: "Engineer", salary: 2_000_000)
        let bob = Employee(name: "Bob", designation: "Manager", salary: 3_000_000)
        writer.insert(ann)
        writer.insert(bob)
        try writer.save()
        let gone = bob.persistentModelID
        writer.delete(bob)
        try writer.save()
        // Ann's record, cut short: the decoder runs out of bytes.
        let broken = ann.persistentModelID
        let bytes = try #require(try container.store.get(broken.storeKey, in: "Employee"))
        try container.store.put(Array(bytes.prefix(4)), for: broken.storeKey, in: "Employee")

        let context = ModelContext(container)
        let missing = PersistentIdentifier(entityName: "Employee", primaryKey: 1_000)
        let zero = PersistentIdentifier(entityName: "Employee", primaryKey: 0)
        for _ in 0..<2 {
            for id in [gone, missing, zero] {
                #expect(try context.model(for: id, as: Employee.self) == nil)
                #expect(try context.model(for: id) == nil)
                #expect(context.registeredModel(for: id, as: Employee.self) == nil)
            }
            #expect {
                _ = try context.model(for: broken, as: Employee.self)
            } throws: { error in
                guard case LogbookError.corruptRecord = error else { return false }
                return true
            }
            #expect(context.registeredModel(for: broken, as: Employee.self) == nil)
        }
        // The context's description counts what it holds.
        #expect(String(describing: context).hasPrefix("ModelContext(registered: 0,"))
        #expect(!context.hasChanges)
        // The context still reads and saves as usual.
        let carol = Employee(name: "Carol", designation: "Analyst", salary: 1)
        context.insert(carol)
        try context.save()
        let again = try #require(
            try ModelContext(container).model(for: carol.persistentModelID, as: Employee.self))
        #expect(again.name == "Carol")
        #expect(String(describing: context).hasPrefix("ModelContext(registered: 1,"))
        try container.close()
    }

    @Test func deleteIgnoresObjectsOfOtherContextsAndUnregisteredOnes() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open()
        let first = ModelContext(container)
        let ann = Employee(name: "Ann")
        first.insert(ann)
        try first.save()
        let other = ModelContext(container)
        other.delete(ann)
        other.delete(Employee(name: "Never inserted"))
        #expect(!other.hasChanges)
        #expect(!ann.isDeleted)
        let annThere = try #require(try other.model(for: ann.persistentModelID, as: Employee.self))
        other.delete(annThere)
        #expect(other.hasChanges)
        #expect(annThere.isDeleted)
        #expect(!ann.isDeleted)
        try other.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == 0)
    }

    /// A change keeps the field's saved value, read in place for the common kinds (String,
    /// Int64, Int, Double, Bool) and through the field's accessor for the rest: rollback gives
    /// every one back, and a save after a second change stores the last value.
    @Test func savedValueOfEveryFieldKindComesBackOnRollback() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([FieldKinds.self])
        let context = ModelContext(container)
        let object = FieldKinds()
        context.insert(object)
        try context.save()
        object.text = "changed"
        object.count = -7
        object.big = Int64.min
        object.ratio = -0.25
        object.flag = true
        object.note = nil
        object.text = "changed twice"
        #expect(context.hasChanges)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(object.text == "saved")
        #expect(object.count == 3)
        #expect(object.big == Int64.max)
        #expect(object.ratio == 1.5)
        #expect(object.flag == false)
        #expect(object.note == "note")
        object.count = 4
        object.count = 5
        try context.save()
        let reread = try #require(
            try ModelContext(container).model(for: object.persistentModelID, as: FieldKinds.self))
        #expect(reread.count == 5)
        #expect(reread.text == "saved")
        try container.close()
    }
}

final class FieldKinds: PersistentModel {
    @Attribute var text = "saved"
    @Attribute var count: Int = 3
    @Attribute var big: Int64 = .max
    @Attribute var ratio: Double = 1.5
    @Attribute var flag = false
    @Attribute var note: String? = "note"
    init() {}
}
