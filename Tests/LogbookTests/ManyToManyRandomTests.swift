import Foundation
import Logbook
import TestSupport
import Testing

/// Many-to-many links under random link, unlink, delete, save and rollback in two contexts,
/// checked after every step against a set of (student, course) pairs, from both sides. Prints
/// its seed; `LOGBOOK_SEED=n` replays one.
@MainActor @Suite struct ManyToManyRandomTests {
    private struct Pair: Hashable {
        let student: Int
        let course: Int
    }

    /// One context with its objects, by number (names are "s<n>" and "c<n>").
    private struct Side {
        let context: ModelContext
        let students: [Int: Student]
        let courses: [Int: Course]

        init(_ container: ModelContainer) throws {
            context = ModelContext(container)
            students = Dictionary(
                uniqueKeysWithValues: try context.fetch(FetchDescriptor<Student>()).map {
                    (Int($0.name.dropFirst())!, $0)
                })
            courses = Dictionary(
                uniqueKeysWithValues: try context.fetch(FetchDescriptor<Course>()).map {
                    (Int($0.title.dropFirst())!, $0)
                })
        }
    }

    @Test func linksMatchAModelOfPairs() async throws {
        let seed = testSeed("ManyToManyRandomTests")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Student.self, Course.self])
        let setup = ModelContext(container)
        let count = 6
        for i in 0..<count {
            setup.insert(Student(name: "s\(i)"))
            setup.insert(Course(title: "c\(i)"))
        }
        try setup.save()
        let sides = [try Side(container), try Side(container)]
        var saved = Set<Pair>()
        var deletedStudents = Set<Int>()
        var deletedCourses = Set<Int>()
        var changes = container.changes().makeAsyncIterator()

        func check(_ side: Side, _ pairs: Set<Pair>, _ what: String) {
            for (i, student) in side.students where !student.isDeleted {
                let expected = pairs.filter { $0.student == i }.map { "c\($0.course)" }.sorted()
                #expect(
                    student.courses.map(\.title).sorted() == expected,
                    "s\(i).courses after \(what) (seed \(seed))")
            }
            for (j, course) in side.courses where !course.isDeleted {
                let expected = pairs.filter { $0.course == j }.map { "s\($0.student)" }.sorted()
                #expect(
                    (course.students ?? []).map(\.name).sorted() == expected,
                    "c\(j).students after \(what) (seed \(seed))")
            }
        }

        for round in 0..<40 {
            let s = Int.random(in: 0...1, using: &rng)
            let side = sides[s]
            var pending = saved
            var goneStudents = deletedStudents
            var goneCourses = deletedCourses
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let i = Int.random(in: 0..<count, using: &rng)
                let j = Int.random(in: 0..<count, using: &rng)
                guard !goneStudents.contains(i), !goneCourses.contains(j) else { continue }
                guard let student = side.students[i], let course = side.courses[j] else {
                    continue
                }
                let what: String
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<3:
                    what = "link s\(i) c\(j) from the student"
                    if !student.courses.contains(where: { $0 === course }) {
                        student.courses.append(course)
                    }
                    pending.insert(Pair(student: i, course: j))
                case 3..<6:
                    what = "link s\(i) c\(j) from the course"
                    var members = course.students ?? []
                    if !members.contains(where: { $0 === student }) { members.append(student) }
                    course.students = members
                    pending.insert(Pair(student: i, course: j))
                case 6..<8:
                    what = "unlink s\(i) c\(j) from the \(j % 2 == 0 ? "student" : "course")"
                    if j % 2 == 0 {
                        student.courses.removeAll { $0 === course }
                    } else {
                        course.students = (course.students ?? []).filter { $0 !== student }
                    }
                    pending.remove(Pair(student: i, course: j))
                case 8:
                    what = "delete s\(i)"
                    side.context.delete(student)
                    goneStudents.insert(i)
                    pending = pending.filter { $0.student != i }
                default:
                    what = "delete c\(j)"
                    side.context.delete(course)
                    goneCourses.insert(j)
                    pending = pending.filter { $0.course != j }
                }
                check(side, pending, "\(what) in context \(s), round \(round)")
            }
            if Bool.random(using: &rng) {
                side.context.rollback()
                check(side, saved, "rollback in context \(s), round \(round)")
                continue
            }
            let anything = side.context.hasChanges
            try side.context.save()
            saved = pending
            deletedStudents = goneStudents
            deletedCourses = goneCourses
            if anything { sides[1 - s].context.merge(try #require(await changes.next())) }
            check(sides[1 - s], saved, "merge into context \(1 - s), round \(round)")
            check(try Side(container), saved, "a fresh context, round \(round)")
        }
    }
}
