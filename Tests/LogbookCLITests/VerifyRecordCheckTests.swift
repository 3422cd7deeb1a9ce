import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// `verify` checks each object record with ``RecordDecoder/checker(forKeyspace:)``, which builds
/// no values: it must find exactly what a full decode finds.
@Suite struct VerifyRecordCheckTests {
    /// On a store with records of two schema versions (an Employee of version 1; an Employee with
    /// a company and the Company, of version 2), every record, every truncation of it, a byte
    /// too many and every byte set to a few telling values: the check fails exactly when the
    /// decode does, with the same error, and says a record holds a reference exactly when its
    /// decoded `company` is not null.
    @Test func theCheckFindsWhatTheDecoderFinds() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try SchemaVersionDumpTests.makeStore(at: path)
        var options = LogStoreOptions()
        options.readOnly = true
        options.createIfMissing = false
        let store = try LogStore(path: path, options: options)
        defer { try? store.close() }
        let decoder = try RecordDecoder(store: store)
        var records: [LogInspector.Record] = []
        try LogInspector.walk(storeAt: path) { record in
            if record.kind == .put, decoder.isEntityKeyspace(record.keyspace) {
                records.append(record)
            }
        }
        #expect(records.count == 3)
        var failures = 0
        var withReferences = 0
        for record in records {
            let check = try #require(decoder.checker(forKeyspace: record.keyspace))
            let value = try #require(record.value)
            var variants = [value, value + [0]]
            variants += (0..<value.count).map { Array(value[..<$0]) }
            for i in value.indices {
                for byte: UInt8 in [0x00, 0x01, 0x02, 0x03, 0x7F, 0x80, 0xFF] where byte != value[i]
                {
                    var changed = value
                    changed[i] = byte
                    variants.append(changed)
                }
            }
            for variant in variants {
                let decoded = Result {
                    try decoder.decode(keyspace: record.keyspace, key: record.key, value: variant)
                }
                let checked = Result {
                    try record.key.withUnsafeBytes { key in
                        try variant.withUnsafeBytes { try check(key, $0) }
                    }
                }
                switch (decoded, checked) {
                case (.success(let object), .success(let holdsReference)):
                    let company = object.attributes.first { $0.name == "company" }?.value
                    let expected: Bool
                    if let company, case .integer = company {
                        expected = true
                    } else {
                        expected = false
                    }
                    #expect(holdsReference == expected, "\(record.keyspace) \(variant)")
                    if variant == value && holdsReference { withReferences += 1 }
                case (.failure(let a), .failure(let b)):
                    #expect("\(a)" == "\(b)", "\(record.keyspace) \(variant)")
                    failures += 1
                default:
                    Issue.record(
                        "\(record.keyspace) \(variant): decode \(decoded), check \(checked)")
                }
            }
        }
        #expect(withReferences == 1)
        #expect(failures > 0)
    }
}
