import Foundation
import Testing

@testable import Logbook
@testable import TestSupport

/// Schema format 3's attribute types through a replica (issue 37 with issue 34): every type
/// goes up in the export's column (SMALLINT…NUMERIC(20, 0), REAL, NUMERIC, TEXT, arrays, a
/// composite's fields as columns, JSONB), comes down to another store exactly, and an SQL
/// client's change of such a column reaches the stores; what cannot be kept is refused by name.
@Suite(.enabled(if: SyncFixture.isAvailable, "needs the server of .ci/postgres"))
struct ReplicaTypeTests {
    static var types: [any PersistentModel.Type] { [Gadget.self, OptionalGadget.self] }

    /// `rows` parsed back into values with `schema`, for comparing two stores or a store and
    /// PostgreSQL: a float's or double's NaN reads as any NaN (PostgreSQL keeps one NaN).
    static func sameRows(_ a: [String: [String?]], _ b: [String: [String?]], _ schema: Schema)
        -> String?
    {
        guard Set(a.keys) == Set(b.keys) else {
            return "objects differ: \(Set(a.keys).symmetricDifference(b.keys).sorted())"
        }
        for key in a.keys.sorted() {
            let entity = schema.entity(named: String(key.prefix { $0 != "/" }))!
            for (field, (x, y)) in zip(entity.storedFields.attributes, zip(a[key]!, b[key]!)) {
                guard let u = CanonicalText.value(x, field), let v = CanonicalText.value(y, field),
                    sameValue(u, v, anyNaN: true)
                else { return "\(key).\(field.name): \(x ?? "NULL") and \(y ?? "NULL")" }
            }
        }
        return nil
    }

    /// `a`, `b` and the database hold the same objects.
    static func expectSameEverywhere(
        _ a: ReplicaStore, _ b: ReplicaStore, _ database: SyncFixture.Database, _ seed: UInt64
    ) throws {
        let schema = a.container.schema
        let stores = sameRows(try b.rows(), try a.rows(), schema)
        #expect(stores == nil, "\(stores ?? ""), seed \(seed)")
        let server = sameRows(try databaseRows(database, schema: schema), try a.rows(), schema)
        #expect(server == nil, "\(server ?? ""), seed \(seed)")
    }

    @Test func everyTypeGoesUpAndComesDownToAnotherStoreExactly() throws {
        let seed = testSeed("ReplicaTypeTests")
        var values = TypeValues(seed: seed, allowsNUL: false)
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a", types: Self.types)
            defer { a.close() }
            let b = try ReplicaStore(database, name: "b", types: Self.types)
            defer { b.close() }
            try a.replica.sync()
            try b.replica.sync()
            let context = a.context()
            var gadgets: [Gadget] = []
            for i in 0..<40 {
                let g = values.gadget("g\(i)")
                context.insert(g)
                gadgets.append(g)
                context.insert(values.optionalGadget("o\(i)"))
            }
            try context.save()
            try a.replica.sync()
            try b.replica.sync()
            try Self.expectSameEverywhere(a, b, database, seed)

            // Updates of every field go up as updates, and down again.
            for g in gadgets.prefix(20) {
                let fresh = values.gadget(g.name)
                g.i8 = fresh.i8
                g.u64 = fresh.u64
                g.ratio = fresh.ratio
                g.price = fresh.price
                g.homepage = fresh.homepage
                g.status = fresh.status
                g.address = fresh.address
                g.tags = fresh.tags
                g.codes = fresh.codes
                g.labels = fresh.labels
                g.matrix = fresh.matrix
            }
            try context.save()
            try a.replica.sync()
            try b.replica.sync()
            try Self.expectSameEverywhere(a, b, database, seed)
        }
    }

    /// The change log's rows go up in COPY's text format, inside which a `text[]` literal:
    /// strings with the bytes either escapes (tab, newline, carriage return, backslash, quote,
    /// comma, braces, the word NULL) come down to another store exactly, in an insert and in
    /// an update, and so does an author name holding them.
    @Test func stringsWithCopysSpecialBytesGoUpAndComeDownExactly() throws {
        let seed = testSeed("ReplicaTypeTests")
        var values = TypeValues(seed: seed, allowsNUL: false)
        let tricky = [
            "a\tb", "line\nnext", "cr\rlf\r\n", "back\\slash", "\\N", "NULL", "null", "\"q\"",
            "{braces}", "a,b", "\\t literal", "",
        ]
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a\t\\b\nc", types: Self.types)
            defer { a.close() }
            let b = try ReplicaStore(database, name: "b", types: Self.types)
            defer { b.close() }
            try a.replica.sync()
            try b.replica.sync()
            let context = a.context()
            var gadgets: [Gadget] = []
            for text in tricky {
                let g = values.gadget(text)
                g.tags = [text, "x", text + text]
                context.insert(g)
                gadgets.append(g)
            }
            try context.save()
            try a.replica.sync()
            try b.replica.sync()
            try Self.expectSameEverywhere(a, b, database, seed)
            let names = Set(try b.context().fetch(FetchDescriptor<Gadget>()).map(\.name))
            #expect(names == Set(tricky))

            for (g, text) in zip(gadgets, tricky.reversed()) {
                g.name = text + "\t" + g.name
                g.tags = [text]
            }
            try context.save()
            try a.replica.sync()
            try b.replica.sync()
            try Self.expectSameEverywhere(a, b, database, seed)
            let authors = try b.container.history().compactMap(\.author)
            #expect(authors.last == "replica:a\t\\b\nc", "\(authors)")
        }
    }

    @Test func anSQLUpdateOfEachNewTypeReachesTheStore() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a", types: Self.types)
            defer { a.close() }
            let context = a.context()
            let gadget = Gadget()
            gadget.name = "g"
            context.insert(gadget)
            try context.save()
            try a.replica.sync()
            let id = gadget.persistentModelID.primaryKey
            let connection = try database.connect()
            defer { connection.close() }
            try connection.simpleQuery(
                """
                UPDATE "Gadget" SET i8 = -128, i16 = 32767, i32 = -2147483648, u8 = 255,
                  u16 = 65535, u32 = 4294967295, u64 = 18446744073709551615, ratio = 1.5,
                  price = 12.50, homepage = 'https://example.org/a?b=c', status = 'archived',
                  priority = 10, "address.city" = 'Pune', "address.zip" = '411001',
                  "address.geo.lat" = 18.52, tags = ARRAY['a', 'b c', '', 'NULL', 'x"y\\z'],
                  codes = '{3,1,2,3}',
                  labels = '[{"name": "n", "weight": 7, "status": "suspended"}, {"name": "m", "weight": -1}]',
                  matrix = '[[1, 2], [], [9223372036854775807]]'
                WHERE id = \(id)
                """)
            let since = try a.container.currentHistoryToken
            try a.replica.sync()

            let saves = try a.container.history(after: since)
            #expect(saves.count == 1)
            #expect(saves.first?.author == "sql:postgres")
            let reader = ModelContext(a.container)
            let g = try #require(try reader.fetch(FetchDescriptor<Gadget>()).first)
            #expect(g.i8 == -128 && g.i16 == 32767 && g.i32 == .min)
            #expect(g.u8 == 255 && g.u16 == .max && g.u32 == .max && g.u64 == .max)
            #expect(g.ratio == 1.5)
            #expect(g.price == Decimal(string: "12.5"))
            #expect(g.homepage == URL(string: "https://example.org/a?b=c"))
            #expect(g.status == .archived && g.priority == .high)
            #expect(g.address.city == "Pune" && g.address.zip == "411001")
            #expect(g.address.geo.lat == 18.52)
            #expect(g.tags == ["a", "b c", "", "NULL", "x\"y\\z"])
            #expect(g.codes == [1, 2, 3])
            #expect(
                g.labels == [
                    Tag(name: "n", weight: 7, status: .suspended), Tag(name: "m", weight: -1),
                ])
            #expect(g.matrix == [[1, 2], [], [.max]])
            // And it goes nowhere else: PostgreSQL and the store agree.
            let schema = a.container.schema
            #expect(
                Self.sameRows(try databaseRows(database, schema: schema), try a.rows(), schema)
                    == nil)
        }
    }

    /// An SQL client can write a value the column takes but the attribute cannot hold (300 in
    /// the SMALLINT of an `Int8`): the replica stops at it with an error naming the table and
    /// column, and the store keeps what it had.
    @Test func aValueOutsideTheAttributesRangeIsATypedError() throws {
        try withDatabase { database in
            let a = try ReplicaStore(database, name: "a", types: Self.types)
            defer { a.close() }
            let context = a.context()
            let gadget = Gadget()
            gadget.name = "g"
            gadget.i8 = 5
            context.insert(gadget)
            try context.save()
            try a.replica.sync()
            let id = gadget.persistentModelID.primaryKey
            let connection = try database.connect()
            defer { connection.close() }
            try connection.simpleQuery("UPDATE \"Gadget\" SET i8 = 300 WHERE id = \(id)")
            #expect {
                try a.replica.sync()
            } throws: { error in
                guard
                    case .sync(.valueNotReadable(let table, let column, let row, let text))? =
                        error as? LogbookError
                else { return false }
                return table == "Gadget" && column == "i8" && row == Int64(id) && text == "300"
            }
            let reader = ModelContext(a.container)
            #expect(try reader.fetch(FetchDescriptor<Gadget>()).first?.i8 == 5)
        }
    }

    @Test(arguments: [AttributeType.composite, .array, .set])
    func aUniqueCollectionOrCompositeIsRefusedByName(_ type: AttributeType) throws {
        let members =
            type == .composite
            ? [AttributeDescription("city", .string)] : [AttributeDescription("", .string)]
        var attributes = [
            AttributeDescription("name", .string),
            AttributeDescription("place", type, unique: true, members: members),
        ]
        if type == .composite { attributes.append(AttributeDescription("place.city", .string)) }
        let schema = Schema([Entity(name: "Site", attributes: attributes)])
        #expect {
            try SyncSetup.requireSyncableAttributes(schema)
        } throws: { error in
            guard
                case .sync(.unsupportedAttribute(let entity, let attribute, _))? =
                    error as? LogbookError
            else { return false }
            return entity == "Site" && attribute == "place"
                && "\(error)".contains("Site.place cannot be synced")
        }
        try withDatabase { database in
            let directory = TemporaryDirectory("replica")
            defer { directory.remove() }
            let container = try ModelContainer(
                schema: schema, at: URL(filePath: directory.child("store.logbook")))
            defer { try? container.close() }
            let replica = PostgreSQLReplica(
                container: container, configuration: try database.configuration,
                options: PostgreSQLReplica.Options())
            #expect(throws: LogbookError.self) { try replica.sync() }
            // Nothing was created in the database.
            let connection = try database.connect()
            defer { connection.close() }
            let found = try connection.query("SELECT to_regclass('\"Site\"')::text")
            #expect(try found.rows.first?.decode(0, as: String?.self) == nil)
        }
    }
}
