import Logbook

/// A student taking courses: the many-to-many examples (`Course.students` is the inverse).
final class Student: PersistentModel {
    @Attribute var name = ""
    @Relationship(inverse: \Course.students) var courses: [Course] = []
    init() {}
    convenience init(name: String) {
        self.init()
        self.name = name
    }
}

/// A course with students; the optional to-many spelling.
final class Course: PersistentModel {
    @Attribute var title = ""
    @Relationship var students: [Student]? = []
    init() {}
    convenience init(title: String) {
        self.init()
        self.title = title
    }
}

/// A tag that denies its deletion while articles carry it; articles cascade to their notes.
final class Topic: PersistentModel {
    @Attribute var label = ""
    @Relationship(deleteRule: .deny, inverse: \Article.tags) var articles: [Article] = []
    init() {}
    convenience init(label: String) {
        self.init()
        self.label = label
    }
}

/// An article with tags (deleting it cascades to its notes).
final class Article: PersistentModel {
    @Attribute var title = ""
    @Relationship var tags: [Topic] = []
    @Relationship(deleteRule: .cascade, inverse: \Note.articles) var notes: [Note] = []
    init() {}
    convenience init(title: String) {
        self.init()
        self.title = title
    }
}

/// A note attached to articles.
final class Note: PersistentModel {
    @Attribute var text = ""
    @Relationship var articles: [Article] = []
    init() {}
    convenience init(text: String) {
        self.init()
        self.text = text
    }
}
