import Foundation
import Logbook
import TestSupport
import Testing

/// Seeded random inputs for the two decoders a file or a user feeds: the string-predicate parser
/// and the object-record decoder. Each must answer or throw a `LogbookError`, never trap.
@MainActor @Suite struct HostileInputTests {
    @Test func randomPredicateTextParsesOrThrowsATypedError() throws {
        let seed = testSeed("randomPredicateTextParsesOrThrowsATypedError")
        var rng = SeededGenerator(seed: seed)
        let pieces = [
            "salary", "name", "designation", ".", "==", "!=", "<", "<=", ">", ">=", "=", "AND",
            "OR", "NOT",
            "&&", "||", "!", "(", ")", "{", "}", ",", "%@", "%d", "%", "BEGINSWITH", "ENDSWITH",
            "CONTAINS",
            "[c]", "[", "]", "IN", "BETWEEN", "\"Ann\"", "'x'", "\"", "'", "\\", "12", "-3",
            "1e999", "0x1F",
            "nil", "NULL", "TRUE", "FALSE", " ", "\n", "é", "\u{0}", "9999999999999999999999",
        ]
        let values: [String: AttributeValue] = [
            "salary": .integer(5), "name": .string("Ann"), "designation": .null,
        ]
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 0..<12, using: &rng)).map { _ in
                pieces.randomElement(using: &rng)!
            }
            .joined(separator: Bool.random(using: &rng) ? " " : "")
            let arguments: [Any?] = [1_000, "Ann", nil, [1, 2], 3.5].shuffled(using: &rng)
            do {
                let predicate = try StringPredicate(format: text, arguments: arguments)
                _ = try predicate.evaluate(values)
            } catch is LogbookError {
            } catch {
                Issue.record("seed \(seed): \(text.debugDescription) threw \(error)")
            }
        }
    }

    @Test func randomRecordBytesDecodeOrThrowATypedError() throws {
        let seed = testSeed("randomRecordBytesDecodeOrThrowATypedError")
        var rng = SeededGenerator(seed: seed)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("s")
        do {
            let container = try ModelContainer(
                for: [Employee.self, Contact.self], at: URL(filePath: path))
            container.mainContext.insert(Employee(name: "Ann", designation: "Engineer", salary: 1))
            try container.mainContext.save()
            try container.close()
        }
        // Random values under the entities' keys, written below the object layer.
        let store = try LogStore(path: path)
        var batch = WriteBatch()
        for i in 0..<400 {
            let length = Int.random(in: 0..<40, using: &rng)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Often a valid schema version first.
            if !bytes.isEmpty && Bool.random(using: &rng) { bytes[0] = 1 }
            let key = withUnsafeBytes(of: UInt64(100 + i).bigEndian) { Array($0) }
            batch.put(bytes, for: key, in: i % 2 == 0 ? "Employee" : "Contact")
        }
        try store.commit(batch)
        let decoder = try RecordDecoder(store: store)
        for entity in ["Employee", "Contact"] {
            try store.forEach(in: entity) { key, value in
                do {
                    _ = try decoder.decode(keyspace: entity, key: key, value: value)
                } catch is LogbookError {
                } catch {
                    Issue.record("seed \(seed): \(entity) record threw \(error)")
                }
            }
        }
        try store.close()
        // The context's fetch path meets the same records.
        let container = try ModelContainer(
            for: [Employee.self, Contact.self], at: URL(filePath: path))
        do {
            _ = try container.mainContext.fetch(FetchDescriptor<Employee>())
        } catch is LogbookError {}
        do {
            _ = try container.mainContext.fetch(
                FetchDescriptor<Contact>(predicate: #Predicate { $0.age == nil }))
        } catch is LogbookError {}
    }

    @Test func aVarintOverflowing64BitsIsADamagedRecord() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let schema = Schema([
            Entity(name: "Note", attributes: [AttributeDescription("rank", .integer)])
        ])
        let container = try fixture.open(schema: schema)
        // Schema version 1, object version 1, then a 10-byte varint whose last byte sets bits
        // past 64: the one varint reader of the package refuses it, as FORMAT.md says.
        let record: [UInt8] = [1, 1] + [UInt8](repeating: 0xFF, count: 9) + [0x7F]
        try container.store.put(
            record, for: PersistentIdentifier(entityName: "Note", primaryKey: 1).storeKey,
            in: "Note")
        #expect {
            _ = try ModelContext(container).fetch(entity: "Note")
        } throws: { error in
            guard case LogbookError.corruptRecord(let entity, _, _) = error else { return false }
            return entity == "Note"
        }
        // One byte less and the same value fits: the decoder reads it.
        try container.store.put(
            [1, 1] + [UInt8](repeating: 0xFF, count: 9) + [0x01],
            for: PersistentIdentifier(entityName: "Note", primaryKey: 1).storeKey, in: "Note")
        let notes = try ModelContext(container).fetch(entity: "Note")
        #expect(notes.first?["rank"] as? Int64 == Int64.min)
    }
}
