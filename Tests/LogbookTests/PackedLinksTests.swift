import Foundation
import TestSupport
import Testing

@testable import Logbook

/// A fetched object's links, packed into one word when they are few and small (no array per
/// object) or kept in an array otherwise, read the same: at every count and at the limits of
/// each packing, through reads, changes, rollback, saves and another context's saves merged.
@MainActor @Suite struct PackedLinksTests {
    private func bytes(_ keys: [UInt64]) -> [UInt8] {
        keys.flatMap { key in withUnsafeBytes(of: key.bigEndian) { Array($0) } }
    }

    private func packed(_ keys: [UInt64]) -> UInt64? {
        bytes(keys).withUnsafeBytes { PackedLinks.pack($0) }
    }

    @Test func keysPackUpToTheirLimitsAndReadBackInOrder() throws {
        let packing: [[UInt64]] = [
            [1], [1 << 62 - 1], [1, 2], [1 << 31 - 2, 1 << 31 - 1], [1, 2, 3],
            [1 << 20 - 3, 1 << 20 - 2, 1 << 20 - 1], [7, 1 << 20 - 1, 1 << 19],
        ].filter { $0 == $0.sorted() }
        for keys in packing {
            let word = try #require(packed(keys), "\(keys)")
            #expect(PackedLinks.keys(word) == keys)
            #expect(PackedLinks.pack(keys) == word)
        }
        let notPacking: [[UInt64]] = [
            [], [1 << 62], [1, 1 << 31], [1 << 31, 1 << 31 + 1], [1, 2, 1 << 20],
            [1 << 20, 1 << 20 + 1, 1 << 20 + 2], [1, 2, 3, 4],
        ]
        for keys in notPacking {
            #expect(packed(keys) == nil, "\(keys)")
            #expect(PackedLinks.pack(keys) == nil, "\(keys)")
        }
        // Bytes that are no link list never pack (the array path refuses them).
        for keys: [UInt64] in [[0], [2, 1], [3, 3], [1, 0], [1, 2, 2]] {
            #expect(packed(keys) == nil, "\(keys)")
        }
        #expect([UInt8](repeating: 1, count: 12).withUnsafeBytes { PackedLinks.pack($0) } == nil)
        #expect(PackedLinks.keys(0) == [])
    }

    @Test func everyCountOfLinksReadsChangesRollsBackAndSaves() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Student.self, Course.self])
        let seed = ModelContext(container)
        let students = (0..<6).map { Student(name: "S\($0)") }
        for student in students { seed.insert(student) }
        for count in 0...5 {
            let course = Course(title: "C\(count)")
            seed.insert(course)
            course.students = Array(students.prefix(count))
        }
        try seed.save()
        let all = (0..<6).map { "S\($0)" }
        func names(_ course: Course) -> [String] { (course.students ?? []).map(\.name).sorted() }
        let context = ModelContext(container)
        let courses = try context.fetch(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.title)]))
        #expect(courses.map(names) == (0...5).map { Array(all.prefix($0)) })
        // A change is undone by rollback, from each count to one more.
        let fresh = ModelContext(container)
        let unread = try fresh.fetch(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.title)]))
        let everyone = try fresh.fetch(FetchDescriptor<Student>(sortBy: [SortDescriptor(\.name)]))
        for (count, course) in unread.enumerated() {
            course.students = Array(everyone.prefix(min(count + 1, 6)))
        }
        fresh.rollback()
        #expect(unread.map(names) == (0...5).map { Array(all.prefix($0)) })
        // Saved the other way round (each course one student fewer, or four more), then read
        // by a context that had fetched them before the save.
        for (count, course) in unread.enumerated() {
            course.students =
                count == 0 ? Array(everyone.prefix(4)) : Array(everyone.prefix(count - 1))
        }
        try fresh.save()
        let again = try context.fetch(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.title)]))
        #expect(
            again.map(names) == [Array(all.prefix(4))] + (1...5).map { Array(all.prefix($0 - 1)) })
    }

    @Test func aMergeReplacesPackedLinksWithAnArrayAndBack() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Student.self, Course.self])
        let seed = ModelContext(container)
        let students = (0..<5).map { Student(name: "S\($0)") }
        for student in students { seed.insert(student) }
        let math = Course(title: "Math")
        seed.insert(math)
        math.students = Array(students.prefix(2))
        try seed.save()
        let here = ModelContext(container)
        let there = ModelContext(container)
        // Fetched with two links, not read yet.
        let mathHere = try #require(try here.fetch(FetchDescriptor<Course>()).first)
        let mathThere = try #require(try there.fetch(FetchDescriptor<Course>()).first)
        let everyone = try there.fetch(FetchDescriptor<Student>(sortBy: [SortDescriptor(\.name)]))
        var changes = container.changes().makeAsyncIterator()
        for count in [5, 1, 4, 3, 0, 2] {
            mathThere.students = Array(everyone.prefix(count))
            try there.save()
            here.merge(try #require(await changes.next()))
            #expect(
                (mathHere.students ?? []).map(\.name).sorted() == (0..<count).map { "S\($0)" },
                "\(count) links")
        }
    }
}
