import Foundation
import Logbook

/// A customer's standing: a String enum, as apps write one (not `CaseIterable`).
enum CustomerStatus: String, Codable {
    case prospect, active, dormant, suspended, closed
}

/// A customer's address: a `Codable` struct, stored as structured fields.
struct CustomerAddress: Codable {
    var street = ""
    var city = ""
    var zip = ""
}

/// The customer of the type rows (issue 34): an indexed enum and a composite whose city is
/// indexed.
final class Customer: PersistentModel {
    @Attribute var name = ""
    @Attribute(.indexed) var status = CustomerStatus.prospect
    @Attribute var address = CustomerAddress()
    @Attribute var balance: Int64 = 0

    static var indexes: [ModelIndex<Customer>] { [.index(\.address.city)] }

    init() {}

    init(_ row: CustomerRow) {
        name = row.name
        status = CustomerStatus(rawValue: row.status) ?? .prospect
        address = CustomerAddress(street: row.street, city: row.city, zip: row.zip)
        balance = row.balance
    }
}

/// One customer, as both engines store it.
struct CustomerRow {
    var id: Int64
    var name: String
    var status: String
    var street: String
    var city: String
    var zip: String
    var balance: Int64
}

/// The type rows (issue 34), on N customers: a fetch by enum value (`status == .suspended`,
/// about 10%) and fetches through a composite's field (`address.city == …`, about 1% each),
/// against SQLite's natural schema (`status TEXT`, the address as columns) and indexes.
enum TypeWorkloads {
    static let cities = (0..<100).map { "City \($0)" }
    static let fetchedCities = 20

    static func generate(count: Int) -> [CustomerRow] {
        var rng = SeededGenerator(seed: Seed.data &+ 34)
        let statuses: [(String, Int)] = [
            ("active", 50), ("prospect", 20), ("dormant", 15), ("suspended", 10), ("closed", 5),
        ]
        return (1...max(count, 1)).map { i in
            var roll = Int.random(in: 0..<100, using: &rng)
            var status = "active"
            for (name, weight) in statuses {
                if roll < weight {
                    status = name
                    break
                }
                roll -= weight
            }
            return CustomerRow(
                id: Int64(i), name: "Customer \(i)", status: status,
                street: "\(Int.random(in: 1...999, using: &rng)) Main Street",
                city: cities[Int.random(in: 0..<cities.count, using: &rng)],
                zip: String(Int.random(in: 10_000...99_999, using: &rng)),
                balance: Int64.random(in: -1_000...1_000_000, using: &rng))
        }
    }

    static var all: [Workload] {
        [
            Workload(
                name: "objects-types", group: "objects",
                summary:
                    "Customers with an indexed enum and composite: fetch by enum value, by a composite's field"
            ) { context in
                let n = context.sizes.employees
                context.reporter.note(
                    "objects-types: \(n) Customers (status: an indexed String enum; address: a Codable struct of street, city, zip, its city indexed)"
                )
                let rows = generate(count: n)
                try ScratchDirectory.with("objects-types") { directory in
                    try run(rows, directory, context)
                }
            }
        ]
    }

    /// What a fetch read: the objects, and a hash of every field of each.
    struct Fetched: Equatable, CustomStringConvertible {
        var count = 0
        var hash: UInt64 = 0

        mutating func add(
            _ id: Int64, _ name: String, _ status: String, _ city: String, _ zip: String,
            _ balance: Int64
        ) {
            count += 1
            var h = UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15
            h ^= UInt64(name.utf8.count) &* 31 ^ UInt64(status.utf8.count) &* 131
            h ^= UInt64(city.utf8.count &+ zip.utf8.count) &* 1_000_003
            h ^= UInt64(bitPattern: balance)
            hash &+= h
        }

        var description: String { "\(count) objects, hash \(hash)" }
    }

    static func run(_ rows: [CustomerRow], _ directory: String, _ context: BenchContext) throws {
        let reporter = context.reporter
        let n = rows.count
        let url = URL(fileURLWithPath: directory + "/customers.logbook")
        let container = try ModelContainer(for: [Customer.self], at: url)
        var seconds = try measure {
            let load = ModelContext(container)
            for row in rows { load.insert(Customer(row)) }
            try load.save()
        }
        reporter.timing(
            "objects-types-load", engine: "logbook", operations: n, bytes: 0, seconds: seconds,
            note: "insert + one save, indexes on status and address.city")
        let sqlite = try SQLiteCustomers(path: directory + "/customers.sqlite")
        seconds = try measure { try sqlite.insertAll(rows) }
        reporter.timing(
            "objects-types-load", engine: "sqlite", operations: n, bytes: 0, seconds: seconds,
            note: "status and city columns, each indexed")

        // By enum value.
        let suspended = CustomerStatus.suspended
        let (ours, ourSeconds) = try ObjectWorkloads.bestOfThree {
            var fetched = Fetched()
            let fresh = ModelContext(container)
            for c in try fresh.fetch(
                FetchDescriptor<Customer>(predicate: #Predicate { $0.status == suspended }))
            {
                fetched.add(
                    Int64(c.persistentModelID.primaryKey), c.name, c.status.rawValue,
                    c.address.city, c.address.zip, c.balance)
            }
            return fetched
        }
        let (theirs, theirSeconds) = try ObjectWorkloads.bestOfThree {
            try sqlite.fetch(where: "status", equals: "suspended")
        }
        try context.agree("objects-fetch-enum", "objects fetched", logbook: ours, sqlite: theirs)
        let expected = rows.filter { $0.status == "suspended" }.count
        try context.expect("objects-fetch-enum", "logbook", "objects", ours.count, equals: expected)
        reporter.timing(
            "objects-fetch-enum", engine: "logbook", operations: 1, bytes: 0, seconds: ourSeconds,
            note: "\(ours.count) objects, status == .suspended (an indexed String enum), best of 3")
        reporter.timing(
            "objects-fetch-enum", engine: "sqlite", operations: 1, bytes: 0,
            seconds: theirSeconds, note: "WHERE status = ? (index on status), best of 3")

        // Through a composite's field, several cities.
        let picked = Array(cities.prefix(fetchedCities))
        let (ourCities, ourCitySeconds) = try ObjectWorkloads.bestOfThree {
            var fetched = Fetched()
            let fresh = ModelContext(container)
            for city in picked {
                for c in try fresh.fetch(
                    FetchDescriptor<Customer>(predicate: #Predicate { $0.address.city == city }))
                {
                    fetched.add(
                        Int64(c.persistentModelID.primaryKey), c.name, c.status.rawValue,
                        c.address.city, c.address.zip, c.balance)
                }
            }
            return fetched
        }
        let (theirCities, theirCitySeconds) = try ObjectWorkloads.bestOfThree {
            var fetched = Fetched()
            for city in picked {
                let one = try sqlite.fetch(where: "city", equals: city)
                fetched.count += one.count
                fetched.hash &+= one.hash
            }
            return fetched
        }
        try context.agree(
            "objects-fetch-composite", "objects fetched", logbook: ourCities, sqlite: theirCities)
        reporter.timing(
            "objects-fetch-composite", engine: "logbook", operations: picked.count, bytes: 0,
            seconds: ourCitySeconds,
            note:
                "\(ourCities.count) objects in \(picked.count) fetches of address.city == ? (a composite's field, indexed), best of 3"
        )
        reporter.timing(
            "objects-fetch-composite", engine: "sqlite", operations: picked.count, bytes: 0,
            seconds: theirCitySeconds,
            note: "WHERE city = ? (address as columns, index on city), best of 3")
        try container.close()
    }
}

/// SQLite's side of the type rows: `customer(id INTEGER PRIMARY KEY, name, status, street,
/// city, zip, balance)` with an index on status and one on city.
final class SQLiteCustomers {
    private let database: SQLiteDatabase
    private let insertRow: SQLiteStatement
    private let byStatus: SQLiteStatement
    private let byCity: SQLiteStatement

    init(path: String) throws {
        database = try SQLiteDatabase(path: path, durable: true)
        try database.execute(
            "CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT, status TEXT, street TEXT, "
                + "city TEXT, zip TEXT, balance INTEGER)")
        try database.execute("CREATE INDEX customer_status ON customer(status)")
        try database.execute("CREATE INDEX customer_city ON customer(city)")
        insertRow = try database.prepare(
            "INSERT INTO customer(id, name, status, street, city, zip, balance) VALUES (?, ?, ?, ?, ?, ?, ?)"
        )
        let columns = "SELECT id, name, status, street, city, zip, balance FROM customer WHERE "
        byStatus = try database.prepare(columns + "status = ?")
        byCity = try database.prepare(columns + "city = ?")
    }

    func insertAll(_ rows: [CustomerRow]) throws {
        try database.execute("BEGIN")
        for row in rows {
            insertRow.bind(1, row.id)
            insertRow.bind(2, row.name)
            insertRow.bind(3, row.status)
            insertRow.bind(4, row.street)
            insertRow.bind(5, row.city)
            insertRow.bind(6, row.zip)
            insertRow.bind(7, row.balance)
            try insertRow.run()
        }
        try database.execute("COMMIT")
    }

    /// The rows whose `column` is `value`, read whole into values, as objects are.
    func fetch(where column: String, equals value: String) throws -> TypeWorkloads.Fetched {
        let query = column == "status" ? byStatus : byCity
        query.bind(1, value)
        defer { query.reset() }
        var rows: [CustomerRow] = []
        while try query.step() {
            rows.append(
                CustomerRow(
                    id: query.int64(0), name: query.text(1), status: query.text(2),
                    street: query.text(3), city: query.text(4), zip: query.text(5),
                    balance: query.int64(6)))
        }
        var fetched = TypeWorkloads.Fetched()
        for r in rows { fetched.add(r.id, r.name, r.status, r.city, r.zip, r.balance) }
        return fetched
    }
}
