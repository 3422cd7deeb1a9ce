import Foundation
import Logbook
import TestSupport
import Testing

/// Many-to-many relationships: inverses in step on both sides, through saves, reopening,
/// rollback and merges; delete rules on both sides; the index behind `contains`.
@MainActor @Suite struct ManyToManyTests {
    private let types: [any PersistentModel.Type] = [Student.self, Course.self]

    private func names(_ students: [Student]?) -> [String] { (students ?? []).map(\.name).sorted() }
    private func titles(_ courses: [Course]) -> [String] { courses.map(\.title).sorted() }

    @Test func theSchemaPairsBothSidesAndOneStoresTheLinks() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(types)
        let course = try #require(container.schema.entity(named: "Course")?.relationships.first)
        let student = try #require(container.schema.entity(named: "Student")?.relationships.first)
        #expect(course.isToMany && student.isToMany)
        #expect(course.inverse == "courses" && student.inverse == "students")
        #expect(course.storesLinks && !student.storesLinks, "Course.students sorts first")
        #expect(
            try Schema.stored(in: container.store)?.entity(named: "Course")?.relationships
                == [course])
    }

    @Test func bothSidesSeeALinkMadeFromEitherSideBeforeAndAfterSaving() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open(types)
            let context = container.mainContext
            let ann = Student(name: "Ann")
            let bob = Student(name: "Bob")
            let math = Course(title: "Math")
            let art = Course(title: "Art")
            ann.courses = [math, art]  // before insertion: inserted with the student
            context.insert(ann)
            context.insert(bob)
            math.students?.append(bob)
            #expect(names(math.students) == ["Ann", "Bob"])
            #expect(names(art.students) == ["Ann"])
            #expect(titles(bob.courses) == ["Math"])
            try context.save()
            bob.courses.append(art)
            #expect(names(art.students) == ["Ann", "Bob"])
            try context.save()
            try container.close()
        }
        let container = try fixture.open([Course.self, Student.self])  // order does not matter
        let context = container.mainContext
        let students = try context.fetch(FetchDescriptor<Student>(sortBy: [SortDescriptor(\.name)]))
        #expect(students.map { titles($0.courses) } == [["Art", "Math"], ["Art", "Math"]])
        let art = try #require(
            try context.fetch(FetchDescriptor<Course>(predicate: #Predicate { $0.title == "Art" }))
                .first)
        #expect(names(art.students) == ["Ann", "Bob"])
        art.students = [students[1]]
        #expect(titles(students[0].courses) == ["Math"])
        try context.save()
    }

    @Test func rollbackRestoresBothSides() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(types)
        let context = container.mainContext
        let ann = Student(name: "Ann")
        let math = Course(title: "Math")
        context.insert(ann)
        context.insert(math)
        try context.save()
        ann.courses = [math]
        #expect(names(math.students) == ["Ann"])
        context.rollback()
        #expect(ann.courses.isEmpty)
        #expect(names(math.students) == [])
        math.students = [ann]
        try context.save()
        math.students = []
        #expect(ann.courses.isEmpty)
        context.rollback()
        #expect(titles(ann.courses) == ["Math"])
        #expect(names(math.students) == ["Ann"])
    }

    @Test func anotherContextsSaveIsSeenOnBothSidesAfterAMerge() async throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(types)
        let seed = ModelContext(container)
        seed.insert(Student(name: "Ann"))
        seed.insert(Course(title: "Math"))
        try seed.save()
        let here = ModelContext(container)
        let there = ModelContext(container)
        let annHere = try #require(try here.fetch(FetchDescriptor<Student>()).first)
        let mathHere = try #require(try here.fetch(FetchDescriptor<Course>()).first)
        #expect(annHere.courses.isEmpty && names(mathHere.students) == [])
        let annThere = try #require(try there.fetch(FetchDescriptor<Student>()).first)
        let mathThere = try #require(try there.fetch(FetchDescriptor<Course>()).first)
        var changes = container.changes().makeAsyncIterator()
        annThere.courses = [mathThere]
        try there.save()
        here.merge(try #require(await changes.next()))
        #expect(titles(annHere.courses) == ["Math"])
        #expect(names(mathHere.students) == ["Ann"])
        mathThere.students = []
        try there.save()
        here.merge(try #require(await changes.next()))
        #expect(annHere.courses.isEmpty)
        #expect(names(mathHere.students) == [])
    }

    @Test func deletingEitherSideNullifiesTheLinks() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(types)
        let context = container.mainContext
        let ann = Student(name: "Ann")
        let bob = Student(name: "Bob")
        let math = Course(title: "Math")
        let art = Course(title: "Art")
        context.insert(ann)
        context.insert(bob)
        ann.courses = [math, art]
        bob.courses = [math]
        try context.save()
        context.delete(math)  // the side that stores the links
        #expect(titles(ann.courses) == ["Art"] && bob.courses.isEmpty)
        try context.save()
        context.delete(ann)  // the derived side
        #expect(names(art.students) == [])
        try context.save()
        let fresh = ModelContext(container)
        let courses = try fresh.fetch(FetchDescriptor<Course>())
        #expect(courses.map(\.title) == ["Art"] && names(courses[0].students) == [])
        #expect(try fresh.fetch(FetchDescriptor<Student>()).map { $0.courses.count } == [0])
        let links = container.indexStatistics().first { $0.entity == "Course" }
        #expect(links?.fields == ["students"] && links?.entries == 0, "no link left behind")
    }

    @Test func denyAndCascadeRulesHoldOnBothSides() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Topic.self, Article.self, Note.self])
        let context = container.mainContext
        let swift = Topic(label: "swift")
        let post = Article(title: "Post")
        let note = Note(text: "n")
        context.insert(post)
        post.tags = [swift]
        post.notes = [note]
        try context.save()
        context.delete(swift)
        #expect(throws: LogbookError.self) { try context.save() }
        context.rollback()
        post.tags = []
        context.delete(swift)
        try context.save()
        context.delete(post)
        #expect(note.isDeleted, "cascade from the derived side")
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Note>()).isEmpty)
    }
}

/// Batch deletes apply the many-to-many delete rules on both sides, as `delete` and `save` do.
@MainActor @Suite struct ManyToManyBatchTests {
    @Test func aBatchDeleteOfTheDerivedSideRemovesItsLinks() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Student.self, Course.self])
        let context = container.mainContext
        let math = Course(title: "Math")
        context.insert(math)
        for name in ["Ann", "Bob", "Cid"] {
            let student = Student(name: name)
            context.insert(student)
            student.courses = [math]
        }
        try context.save()
        #expect(
            try context.delete(model: Student.self, where: #Predicate { $0.name != "Bob" }) == 2)
        let fresh = ModelContext(container)
        let course = try #require(try fresh.fetch(FetchDescriptor<Course>()).first)
        #expect((course.students ?? []).map(\.name) == ["Bob"])
        let links = container.indexStatistics().first { $0.entity == "Course" }
        #expect(links?.entries == 1, "the deleted students' links were rewritten away")
        try container.close()
        let report = try StoreCheck.run(storeAt: fixture.url.path)
        #expect(!report.isDamaged && report.danglingReferences.isEmpty, "\(report)")
    }

    @Test func aBatchDeleteOfTheStoringSideCascadesAndDenies() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Article.self, Topic.self, Note.self])
        let context = container.mainContext
        let post = Article(title: "Post")
        let other = Article(title: "Other")
        context.insert(post)
        context.insert(other)
        post.notes = [Note(text: "n")]  // Article.notes cascades; Note stores the links
        post.tags = [Topic(label: "swift")]
        try context.save()
        // Topic.articles denies; Article stores the links to tags.
        #expect(throws: LogbookError.self) {
            try context.delete(model: Topic.self)
        }
        #expect(
            try context.delete(model: Article.self, where: #Predicate { $0.title == "Post" }) == 1)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Note>()).isEmpty)
        #expect(try context.delete(model: Topic.self) == 1)
    }
}

/// A context as of an earlier save sees the links of then, from both sides.
@MainActor @Suite struct ManyToManyHistoryTests {
    @Test func aPastContextSeesThePastLinks() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Student.self, Course.self])
        let context = container.mainContext
        let ann = Student(name: "Ann")
        let math = Course(title: "Math")
        let art = Course(title: "Art")
        context.insert(ann)
        ann.courses = [math]
        context.insert(art)
        try context.save()
        let before = try container.currentHistoryToken
        ann.courses = [art]
        try context.save()
        let then = try container.context(asOf: before)
        let pastAnn = try #require(try then.fetch(FetchDescriptor<Student>()).first)
        #expect(pastAnn.courses.map(\.title) == ["Math"])
        let pastCourses = try then.fetch(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.title)]))
        #expect(pastCourses.map { ($0.students ?? []).map(\.name) } == [[], ["Ann"]])
        #expect(ann.courses.map(\.title) == ["Art"])
    }
}
