import Foundation
import Logbook
import TestSupport
import Testing

/// The one-result path of a fetch by a unique attribute (`email == value`): it answers as the
/// general fetch does when other contexts save, change the value, delete the object; with
/// registered and stale objects; with a limit, an offset, attributes left out, pending changes
/// left out; and its explanation says what it read.
@MainActor @Suite struct UniqueLookupPathTests {
    static func member(_ email: String, level: Int64) -> LookupMember {
        LookupMember(
            UniqueLookupTests.Row(
                email: email, team: "t", number: level, level: level, nickname: nil))
    }

    static func byEmail(_ email: String) -> FetchDescriptor<LookupMember> {
        FetchDescriptor<LookupMember>(predicate: #Predicate { $0.email == email })
    }

    /// Members `m0@x` … with levels 0 …, inserted into `context` and saved.
    static func saveMembers(_ count: Int, in context: ModelContext) throws {
        for i in 0..<count { context.insert(member("m\(i)@x", level: Int64(i))) }
        try context.save()
    }

    @Test func followsOtherContextsSaves() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([LookupMember.self])
        let writer = ModelContext(container)
        try Self.saveMembers(20, in: writer)

        let reader = ModelContext(container)
        let first = try #require(try reader.fetch(Self.byEmail("m3@x")).first)
        #expect(first.level == 3)
        // The same instance again (uniquing), brought up to another context's save.
        let other = try #require(try writer.fetch(Self.byEmail("m3@x")).first)
        other.level = 33
        try writer.save()
        let again = try reader.fetch(Self.byEmail("m3@x"))
        #expect(again.count == 1 && again.first === first)
        #expect(first.level == 33)
        // The value changed elsewhere: found under the new one only.
        other.email = "moved@x"
        try writer.save()
        #expect(try reader.fetch(Self.byEmail("m3@x")).isEmpty)
        let moved = try reader.fetch(Self.byEmail("moved@x"))
        #expect(moved.count == 1 && moved.first === first && first.email == "moved@x")
        // Deleted elsewhere: gone.
        writer.delete(other)
        try writer.save()
        #expect(try reader.fetch(Self.byEmail("moved@x")).isEmpty)
        #expect(try reader.fetch(Self.byEmail("missing@x")).isEmpty)
        // The constant on the left.
        let wanted = "m4@x"
        #expect(
            try reader.fetch(
                FetchDescriptor<LookupMember>(predicate: #Predicate { wanted == $0.email })
            )
            .map(\.level) == [4])
    }

    @Test func sliceAndFieldsAnswerAsTheGeneralFetch() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([LookupMember.self])
        let writer = ModelContext(container)
        try Self.saveMembers(10, in: writer)
        let context = ModelContext(container)
        var descriptor = Self.byEmail("m5@x")
        descriptor.fetchLimit = 0
        #expect(try context.fetch(descriptor).isEmpty)
        descriptor.fetchLimit = 1
        #expect(try context.fetch(descriptor).map(\.level) == [5])
        descriptor.fetchOffset = 1
        #expect(try context.fetch(descriptor).isEmpty)
        descriptor.fetchLimit = nil
        #expect(try context.fetch(descriptor).isEmpty)
        descriptor.fetchOffset = 0
        descriptor.sortBy = [SortDescriptor(\.level, order: .reverse)]
        #expect(try context.fetch(descriptor).map(\.level) == [5])
        var partial = Self.byEmail("m6@x")
        partial.propertiesToFetch = [\.email]
        let found = try context.fetch(partial)
        #expect(found.map(\.email) == ["m6@x"])
        #expect(found.map(\.level) == [6])
        #expect(try context.fetchCount(Self.byEmail("m6@x")) == 1)
        #expect(
            try context.fetchIdentifiers(Self.byEmail("m6@x")) == found.map(\.persistentModelID))
    }

    @Test func pendingChangesLeftOutOrTakingPart() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([LookupMember.self])
        let context = ModelContext(container)
        try Self.saveMembers(10, in: context)
        let object = try #require(try context.fetch(Self.byEmail("m1@x")).first)
        object.email = "renamed@x"
        // Taking part: the unsaved value decides.
        #expect(try context.fetch(Self.byEmail("m1@x")).isEmpty)
        #expect(try context.fetch(Self.byEmail("renamed@x")).first === object)
        // Left out: the stored value decides, and the registered instance (with its edit) is
        // the result, as the general fetch returns it.
        var stored = Self.byEmail("m1@x")
        stored.includePendingChanges = false
        let found = try context.fetch(stored)
        #expect(found.count == 1 && found.first === object && object.email == "renamed@x")
        // An unsaved insert with a stored object's value: both (uniqueness waits for save).
        context.rollback()
        context.insert(Self.member("m2@x", level: 99))
        #expect(Set(try context.fetch(Self.byEmail("m2@x")).map(\.level)) == [2, 99])
        context.rollback()
        #expect(try context.fetch(Self.byEmail("m2@x")).map(\.level) == [2])
    }

    @Test func explanationSaysWhatItRead() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([LookupMember.self])
        let context = ModelContext(container)
        try Self.saveMembers(10, in: context)
        let hit = try context.explain(Self.byEmail("m7@x"))
        #expect(hit.access == .index && hit.indexes == ["LookupMember(email)"])
        #expect(hit.candidates == 1 && hit.recordsRead == 1 && hit.results == 1, "\(hit)")
        let miss = try context.explain(Self.byEmail("none@x"))
        #expect(miss.access == .index && miss.indexes == ["LookupMember(email)"])
        #expect(miss.candidates == 0 && miss.recordsRead == 0 && miss.results == 0, "\(miss)")
    }

    @Test func byIdentifierAnswersAsTheGeneralFetch() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([LookupMember.self, LookupOther.self])
        let writer = ModelContext(container)
        let other = LookupOther()
        writer.insert(other)
        try Self.saveMembers(10, in: writer)
        let target = try #require(try writer.fetch(Self.byEmail("m4@x")).first)
        let id = target.persistentModelID
        let reader = ModelContext(container)
        let byID = FetchDescriptor<LookupMember>(
            predicate: #Predicate { $0.persistentModelID == id })
        let first = try reader.fetch(byID)
        #expect(first.map(\.level) == [4])
        let plan = try reader.explain(byID)
        #expect(plan.access == .identifiers && plan.candidates == 1 && plan.recordsRead == 1)
        // Uniquing, and another context's save brought in.
        target.level = 44
        try writer.save()
        let again = try reader.fetch(byID)
        #expect(again.count == 1 && again.first === first.first && first.first?.level == 44)
        // The constant on the left; another entity's identifier; a deleted object.
        #expect(
            try reader.fetch(
                FetchDescriptor<LookupMember>(predicate: #Predicate { id == $0.persistentModelID })
            ).map(\.level) == [44])
        let otherID = other.persistentModelID
        #expect(
            try reader.fetch(
                FetchDescriptor<LookupMember>(
                    predicate: #Predicate { $0.persistentModelID == otherID })
            ).isEmpty)
        writer.delete(target)
        try writer.save()
        #expect(try reader.fetch(byID).isEmpty)
        // An unsaved object's temporary identifier, and a pending delete here.
        let pending = Self.member("new@x", level: 7)
        reader.insert(pending)
        let pendingID = pending.persistentModelID
        #expect(
            try reader.fetch(
                FetchDescriptor<LookupMember>(
                    predicate: #Predicate { $0.persistentModelID == pendingID })
            ).first === pending)
        reader.rollback()
        let kept = try #require(try reader.fetch(Self.byEmail("m5@x")).first)
        let keptID = kept.persistentModelID
        reader.delete(kept)
        #expect(
            try reader.fetch(
                FetchDescriptor<LookupMember>(
                    predicate: #Predicate { $0.persistentModelID == keptID })
            ).isEmpty)
    }
}

/// Another entity, for identifiers that name none of ``LookupMember``'s objects.
final class LookupOther: PersistentModel {
    @Attribute var name = ""
    init() {}
}
