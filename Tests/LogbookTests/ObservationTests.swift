import Foundation
import Logbook
import Observation
import Synchronization
import TestSupport
import Testing

/// Models are `Observable`: `withObservationTracking` hears of a change to a property it read,
/// whatever makes the change. One test per source of change.
@MainActor @Suite struct ObservationTests {
    /// Counts the `onChange` calls of one tracking.
    private final class Fired: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
        func fire() { count.add(1, ordering: .relaxed) }
    }

    /// Tracks `read` once; the returned counter tells whether a change was heard.
    private func track(_ read: () -> Void) -> Fired {
        let fired = Fired()
        withObservationTracking {
            read()
        } onChange: {
            fired.fire()
        }
        return fired
    }

    private func setUp(_ fixture: LogbookFixture) throws -> (ModelContainer, ModelContext, Employee)
    {
        let container = try fixture.open()
        let context = ModelContext(container)
        let ann = Employee(name: "Ann", designation: "Engineer", salary: 100)
        context.insert(ann)
        try context.save()
        return (container, context, ann)
    }

    /// A student and a course inserted, unlinked, in the main context of a container of both.
    private func annAndMath(_ fixture: LogbookFixture) throws -> (ModelContainer, Student, Course) {
        let container = try fixture.open([Student.self, Course.self])
        let ann = Student(name: "Ann")
        let math = Course(title: "Math")
        container.mainContext.insert(ann)
        container.mainContext.insert(math)
        return (container, ann, math)
    }

    @Test func aMutationIsHeard() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (_, _, ann) = try setUp(fixture)
        let fired = track { _ = ann.salary }
        let other = track { _ = ann.name }
        ann.salary = 200
        #expect(fired.value == 1)
        #expect(other.value == 0, "a property that was not read")
    }

    @Test func aRollbackIsHeard() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (_, context, ann) = try setUp(fixture)
        ann.salary = 200
        let fired = track { _ = ann.salary }
        context.rollback()
        #expect(ann.salary == 100)
        #expect(fired.value == 1)
    }

    @Test func aMergeOfAnotherContextsSaveIsHeard() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, context, ann) = try setUp(fixture)
        let there = ModelContext(container)
        let annThere = try #require(try there.fetch(FetchDescriptor<Employee>()).first)
        let fired = track { _ = ann.salary }
        var changes = container.changes().makeAsyncIterator()
        annThere.salary = 300
        try there.save()
        #expect(fired.value == 0, "not before the merge")
        context.merge(try #require(await changes.next()))
        #expect(ann.salary == 300)
        #expect(fired.value == 1)
    }

    @Test func aBatchUpdateIsHeard() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (_, context, ann) = try setUp(fixture)
        let fired = track { _ = ann.salary }
        try context.update(model: Employee.self) { $0.salary += 1 }
        #expect(ann.salary == 101)
        #expect(fired.value == 1)
    }

    @Test func aLinkMadeFromTheOtherSideIsHeard() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, ann, math) = try annAndMath(fixture)
        defer { withExtendedLifetime(container) {} }
        let courses = track { _ = ann.courses }
        let students = track { _ = math.students }
        math.students = [ann]  // stored on Course: Student.courses is derived
        #expect(students.value == 1)
        #expect(courses.value == 1)
    }

    /// A read is reported as its own entity's property: a change to another entity's property
    /// at the same position is not heard.
    @Test func eachEntitysPropertiesAreHeardApart() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let (container, ann, math) = try annAndMath(fixture)
        try container.mainContext.save()
        let name = track { _ = ann.name }
        let title = track { _ = math.title }
        math.title = "Algebra"
        #expect(name.value == 0, "Course.title is not Student.name")
        #expect(title.value == 1)
        ann.name = "Anna"
        #expect(name.value == 1)
    }
}
