import Foundation
import Logbook

/// Random work on ``SyncFixture/schema``, for the replica's convergence tests: an app's saves
/// in a store, and transactions of an SQL client. Values come from small pools, so objects
/// meet: unique names and emails clash, relationships move between companies, and deletes
/// reach objects other replicas are changing.
public enum SyncWorkload {
    static func pick<T>(_ items: [T], _ rng: inout SeededGenerator) -> T? {
        items.isEmpty ? nil : items[Int(rng.next() % UInt64(items.count))]
    }

    static func chance(_ percent: UInt64, _ rng: inout SeededGenerator) -> Bool {
        rng.next() % 100 < percent
    }

    /// Random values for a person's attributes.
    static func personValues(_ rng: inout SeededGenerator) -> [String: Any?] {
        var values: [String: Any?] = [
            "name": "p\(rng.next() % 1000)", "salary": Int64(rng.next() % 100_000),
            "score": Double(rng.next() % 10_000) / 7, "active": rng.next() % 2 == 0,
        ]
        if chance(50, &rng) {
            // Whole microseconds: PostgreSQL keeps no finer.
            values["born"] = Date(timeIntervalSince1970: Double(rng.next() % 2_000_000_000))
        }
        if chance(30, &rng) { values["photo"] = Data((0..<(rng.next() % 8)).map { UInt8($0) }) }
        if chance(30, &rng) { values["token"] = UUID() }
        if chance(40, &rng) { values["email"] = "e\(rng.next() % 40)@example.com" }
        return values
    }

    /// One save of one to three random changes in `context`. A save the store refuses (a
    /// unique clash, an object changed or deleted meanwhile) is rolled back.
    public static func step(_ context: ModelContext, _ rng: inout SeededGenerator) {
        let changes = 1 + Int(rng.next() % 3)
        do {
            for _ in 0..<changes {
                let companies = try context.fetchIdentifiers(
                    EntityFetchDescriptor(entityName: "Company"))
                let people = try context.fetchIdentifiers(
                    EntityFetchDescriptor(entityName: "Person"))
                let roll = rng.next() % 100
                if roll < 15 || companies.isEmpty {
                    try context.insert(
                        entity: "Company",
                        values: ["name": "c\(rng.next() % 30)", "city": "t\(rng.next() % 5)"])
                } else if roll < 40 || people.isEmpty {
                    let person = try context.insert(entity: "Person", values: personValues(&rng))
                    if let company = pick(companies, &rng), chance(70, &rng) {
                        try person.setValue(try context.model(for: company), forKey: "company")
                    }
                } else if roll < 70, let id = pick(people, &rng),
                    let person = try context.model(for: id)
                {
                    for (key, value) in personValues(&rng) where chance(50, &rng) {
                        try person.setValue(value, forKey: key)
                    }
                } else if roll < 82, let id = pick(people, &rng),
                    let person = try context.model(for: id)
                {
                    let company = chance(80, &rng) ? pick(companies, &rng) : nil
                    try person.setValue(
                        try company.flatMap { try context.model(for: $0) }, forKey: "company")
                } else if roll < 95, let id = pick(people, &rng),
                    let person = try context.model(for: id)
                {
                    context.delete(person)
                } else if let id = pick(companies, &rng), let company = try context.model(for: id) {
                    if chance(50, &rng) {
                        try company.setValue("t\(rng.next() % 5)", forKey: "city")
                    } else {
                        context.delete(company)
                    }
                }
            }
            try context.save()
        } catch {
            context.rollback()
        }
    }

    /// One random transaction of an SQL client: inserts without an id (the column's default
    /// gives one), updates of values and relationships, deletes. A statement PostgreSQL
    /// refuses (a unique clash) rolls the transaction back.
    package static func sqlStep(_ connection: PostgreSQLConnection, _ rng: inout SeededGenerator)
        throws
    {
        let companies = try connection.query("SELECT id FROM \"Company\"").rows.map {
            try $0.decode(0, as: Int64.self)
        }
        let people = try connection.query("SELECT id FROM \"Person\"").rows.map {
            try $0.decode(0, as: Int64.self)
        }
        let company = pick(companies, &rng).map(String.init) ?? "NULL"
        let sql: String
        switch rng.next() % 100 {
        case 0..<15:
            sql = "INSERT INTO \"Company\" (name, city) VALUES ('c\(rng.next() % 30)', 's')"
        case 15..<40:
            let email = chance(40, &rng) ? "'e\(rng.next() % 40)@example.com'" : "NULL"
            sql = """
                INSERT INTO "Person" (name, salary, score, active, email, company)
                VALUES ('q\(rng.next() % 1000)', \(rng.next() % 1000), 0.5, true, \(email), \(company))
                """
        case 40..<70:
            guard let id = pick(people, &rng) else { return }
            sql =
                "UPDATE \"Person\" SET salary = salary + 1, score = \(rng.next() % 100) WHERE id = \(id)"
        case 70..<82:
            guard let id = pick(people, &rng) else { return }
            sql = "UPDATE \"Person\" SET company = \(company) WHERE id = \(id)"
        case 82..<95:
            guard let id = pick(people, &rng) else { return }
            sql = "DELETE FROM \"Person\" WHERE id = \(id)"
        default:
            guard let id = pick(companies, &rng) else { return }
            sql = "UPDATE \"Company\" SET city = 'sql' WHERE id = \(id)"
        }
        do {
            try connection.simpleQuery(sql)
        } catch LogbookError.postgreSQL(.server) {
            // A clash with a unique value: the transaction did not happen.
        }
    }

    /// The child process of the convergence tests (`logbook-sync-child`):
    /// `work STORE URL NAME SEED STEPS` does STEPS random saves while its replica syncs in the
    /// background, printing `step N` after each; `heal STORE URL NAME` syncs until nothing
    /// moves and prints `healed`; `fill STORE URL NAME SAVES PER` makes SAVES saves of PER
    /// inserts each without syncing. Returns the exit status.
    public static func runChild(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 4 else {
            say("usage: logbook-sync-child work|heal|fill STORE URL NAME [SEED STEPS | SAVES PER]")
            return 2
        }
        do {
            let container = try ModelContainer(
                schema: schema, at: URL(fileURLWithPath: arguments[1]))
            var options = PostgreSQLReplica.Options(name: arguments[3])
            options.maximumRetryDelay = 0.3
            options.pollInterval = 0.5
            let replica = try PostgreSQLReplica(
                container: container, url: arguments[2], options: options)
            switch arguments[0] {
            case "fill":
                // Saves of inserts, without syncing: for measuring a sync of them afterwards.
                guard arguments.count == 6, let saves = Int(arguments[4]),
                    let per = Int(arguments[5])
                else { return 2 }
                let context = ModelContext(container)
                for save in 0..<saves {
                    for n in 0..<per {
                        try context.insert(
                            entity: "Company", values: ["name": "f\(save)-\(n)", "city": "x"])
                    }
                    try context.save()
                }
            case "work":
                guard arguments.count == 6, let seed = UInt64(arguments[4]),
                    let steps = Int(arguments[5])
                else { return 2 }
                var rng = SeededGenerator(seed: seed)
                replica.start()
                let context = ModelContext(container)
                for n in 0..<steps {
                    step(context, &rng)
                    say("step \(n)")
                    usleep(UInt32(rng.next() % 30_000))
                }
                replica.stop()
            default:
                var quiet = 0
                var rounds = 0
                while quiet < 2 {
                    rounds += 1
                    guard rounds < 100 else {
                        say("did not settle: \(replica.status)")
                        return 1
                    }
                    let before = replica.status
                    do {
                        let after = try replica.sync()
                        let moved =
                            after.savesSent != before.savesSent
                            || after.transactionsApplied != before.transactionsApplied
                        quiet = moved ? 0 : quiet + 1
                    } catch {
                        say("retrying after: \(error)")
                        usleep(200_000)
                    }
                }
                say("healed")
            }
            try container.close()
            return 0
        } catch {
            say("failed: \(error)")
            return 1
        }
    }

    static var schema: Schema { SyncFixture.schema }

    /// Writes a line to standard output at once (the parent reads it while the child runs).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
