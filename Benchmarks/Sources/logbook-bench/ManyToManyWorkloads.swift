import CSQLite
import Foundation
import Logbook

/// An attendee of seminars: the side of the many-to-many that stores the links ("Attendee"
/// sorts before "Seminar"), so `seminars.contains(s)` reads its link index.
final class Attendee: PersistentModel {
    @Attribute var name = ""
    @Relationship(inverse: \Seminar.attendees) var seminars: [Seminar] = []
    init() {}
}

/// A seminar: the derived side.
final class Seminar: PersistentModel {
    @Attribute var title = ""
    @Relationship var attendees: [Attendee] = []
    init() {}
}

/// The many-to-many row (issue 34): N attendees each linked to three of N / 1000 seminars; a
/// fetch of the attendees of one seminar, `#Predicate { $0.seminars.contains(seminar) }`,
/// against SQLite's join table `enrollment(attendee, seminar)` with an index on
/// `(seminar, attendee)`. Both read every matching attendee's id and name.
enum ManyToManyWorkloads {
    static var all: [Workload] {
        [
            Workload(
                name: "objects-many-to-many", group: "objects",
                summary: "Attendees ↔ seminars: the attendees of one seminar (contains)"
            ) { context in
                let n = context.sizes.employees
                let queries = context.options.quick ? 20 : 200
                let seminars = max(n / 1_000, 1)
                context.reporter.note(
                    "objects-many-to-many: \(n) attendees, \(seminars) seminars, 3 links each; "
                        + "\(queries) fetches of one seminar's attendees")
                try ScratchDirectory.with("objects-many-to-many") { directory in
                    try run(n, seminars, queries, directory, context)
                }
            }
        ]
    }

    /// The seminars of attendee `i` (numbered from 0), three distinct ones.
    static func links(_ i: Int, _ seminars: Int) -> [Int] {
        let a = (i &* 7919) % seminars
        return Array(Set([a, (a + 1 + i % 97) % seminars, (a + 2 + i % 89) % seminars])).sorted()
    }

    static func run(
        _ n: Int, _ seminarCount: Int, _ queries: Int, _ directory: String, _ context: BenchContext
    ) throws {
        let reporter = context.reporter
        let url = URL(fileURLWithPath: directory + "/m2m.logbook")
        do {
            let container = try ModelContainer(for: [Attendee.self, Seminar.self], at: url)
            let load = ModelContext(container)
            let seminars = (0..<seminarCount).map { i -> Seminar in
                let seminar = Seminar()
                seminar.title = "S\(i)"
                load.insert(seminar)
                return seminar
            }
            let seconds = try measure {
                for i in 0..<n {
                    let attendee = Attendee()
                    attendee.name = "A\(i)"
                    attendee.seminars = links(i, seminarCount).map { seminars[$0] }
                    load.insert(attendee)
                }
                try load.save()
            }
            reporter.timing(
                "objects-many-to-many-load", engine: "logbook", operations: n, bytes: 0,
                seconds: seconds, note: "insert with 3 links each + one save")
            try container.close()
        }
        let sqlite = try SQLiteDatabase(path: directory + "/m2m.sqlite", durable: true)
        try sqlite.execute(
            "CREATE TABLE attendee(id INTEGER PRIMARY KEY, name TEXT); "
                + "CREATE TABLE seminar(id INTEGER PRIMARY KEY, title TEXT); "
                + "CREATE TABLE enrollment(attendee INTEGER, seminar INTEGER, "
                + "PRIMARY KEY(attendee, seminar)) WITHOUT ROWID; "
                + "CREATE INDEX enrollment_seminar ON enrollment(seminar, attendee)")
        var seconds = try measure {
            try sqlite.execute("BEGIN")
            let seminar = try sqlite.prepare("INSERT INTO seminar(id, title) VALUES (?, ?)")
            for i in 0..<seminarCount {
                seminar.bind(1, Int64(i + 1))
                seminar.bind(2, "S\(i)")
                try seminar.run()
            }
            let attendee = try sqlite.prepare("INSERT INTO attendee(id, name) VALUES (?, ?)")
            let link = try sqlite.prepare("INSERT INTO enrollment(attendee, seminar) VALUES (?, ?)")
            for i in 0..<n {
                attendee.bind(1, Int64(i + 1))
                attendee.bind(2, "A\(i)")
                try attendee.run()
                for s in links(i, seminarCount) {
                    link.bind(1, Int64(i + 1))
                    link.bind(2, Int64(s + 1))
                    try link.run()
                }
            }
            try sqlite.execute("COMMIT")
        }
        reporter.timing(
            "objects-many-to-many-load", engine: "sqlite", operations: n, bytes: 0,
            seconds: seconds, note: "join table, index on (seminar, attendee), one transaction")

        var rng = SeededGenerator(seed: Seed.access &+ 34)
        let picked = (0..<queries).map { _ in Int.random(in: 0..<seminarCount, using: &rng) }
        let container = try ModelContainer(for: [Attendee.self, Seminar.self], at: url)
        let fetchContext = ModelContext(container)
        var ours = Checksum()
        seconds = try measure {
            for s in picked {
                let id = PersistentIdentifier(entityName: "Seminar", primaryKey: UInt64(s + 1))
                guard let seminar = try fetchContext.model(for: id) as? Seminar else { continue }
                for attendee in try fetchContext.fetch(
                    FetchDescriptor<Attendee>(
                        predicate: #Predicate { $0.seminars.contains(seminar) }))
                {
                    ours.add(
                        Int64(attendee.persistentModelID.primaryKey) &* 31
                            &+ Int64(attendee.name.utf8.count))
                }
            }
        }
        reporter.timing(
            "objects-many-to-many-contains", engine: "logbook", operations: queries, bytes: 0,
            seconds: seconds,
            note: "seminars.contains(s): the link index, ~\(3 * n / seminarCount) objects each")
        var theirs = Checksum()
        do {  // the statement is finalized at the end of this scope, before the close below
            let query = try sqlite.prepare(
                "SELECT a.id, a.name FROM enrollment e JOIN attendee a ON a.id = e.attendee "
                    + "WHERE e.seminar = ? ORDER BY a.id")
            seconds = try measure {
                for s in picked {
                    query.bind(1, Int64(s + 1))
                    while try query.step() {
                        theirs.add(query.int64(0) &* 31 &+ Int64(query.text(1).utf8.count))
                    }
                    query.reset()
                }
            }
        }
        reporter.timing(
            "objects-many-to-many-contains", engine: "sqlite", operations: queries, bytes: 0,
            seconds: seconds, note: "join table, index on (seminar, attendee)")
        try context.agree(
            "objects-many-to-many-contains", "attendees found", logbook: ours, sqlite: theirs)
        try container.close()
        try sqlite.close()
    }
}
