import Foundation
import LogStore
import TestSupport
import Testing

/// `dump`, `stats` and `verify` on stores written through the object layer.
@Suite struct ObjectDumpTests {
    @Test func textDumpDecodesObjectsByAttribute() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let result = try CLI.run(["dump", path, "--entity", "Employee"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                SEGMENT               OFFSET  SEQ  TYPE    KEYSPACE  KEY  VALUE
                0000000000010000.seg     257    2  put     Employee  1    name="Ann" designation="Engineer" salary=2000000
                0000000000010000.seg     288    2  put     Employee  2    name="Bo" designation="Manager" salary=500
                0000000000010000.seg     315    2  put     Employee  3    name="Cy" designation="Engineer" salary=1500
                0000000000010000.seg     431    3  put     Employee  2    name="Bo" designation="Manager" salary=900
                0000000000010000.seg     521    4  delete  Employee  3

                """)
    }

    @Test func fullDumpShowsTheSchemaRecordAndBookkeeping() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let result = try CLI.run(["dump", path])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 18)
        #expect(
            lines[3]
                == "0000000000010000.seg      73    1  put              logbook.schema   version 1  "
                + "        Employee(name: String, designation: String indexed, salary: Int64)")
        // The store's identity and the start of its history (FORMAT.md Part 2, "History").
        #expect(lines[4].contains("1  put              logbook.meta     \"storeIdentifier\"  0x"))
        #expect(
            lines[11]
                == "0000000000010000.seg     343    2  put              logbook.meta     "
                + "\"lastID:Employee\"  0x0000000000000003")
        #expect(
            lines[12].contains("2  put              logbook.history  \"save\"             0x01"))
        #expect(lines[15].hasSuffix("4  delete           Employee         3"))
    }

    @Test func whereFiltersDecodedObjects() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let history = try CLI.run([
            "dump", path, "--where", "salary > 600 AND designation BEGINSWITH[c] 'eng'",
        ])
        #expect(history.status == 0)
        let ids = { (text: String) in
            text.split(separator: "\n").dropFirst().map {
                $0.split(separator: " ", omittingEmptySubsequences: true)[5]
            }
        }
        #expect(ids(history.stdout) == ["1", "3"])
        let live = try CLI.run(["dump", path, "--live", "--where", "salary < 1000000"])
        #expect(ids(live.stdout) == ["2"])
        #expect(live.stdout.contains("salary=900"))
    }

    @Test func whereErrorsNameThePosition() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let syntax = try CLI.run(["dump", path, "--where", "salary >"])
        #expect(syntax.status == 2)
        #expect(
            syntax.stderr.hasPrefix("logbook: --where: predicate syntax error at line 1, column 9"))
        let unknown = try CLI.run(["dump", path, "--entity", "Employee", "--where", "salry > 1"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("Employee has no attribute \"salry\""))
        let raw = dir.child("raw")
        try Stores.people(at: raw)
        let noSchema = try CLI.run(["dump", raw, "--where", "a == 1"])
        #expect(noSchema.status == 1)
        #expect(noSchema.stderr.contains("holds none"))
    }

    @Test func jsonDumpCarriesTypedAttributes() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.contacts(at: path)
        let result = try CLI.run([
            "dump", path, "--entity", "Contact", "--format", "jsonl", "--limit", "1",
        ])
        #expect(result.status == 0)
        #expect(
            result.stdout
                == #"{"segment":"0000000000010000.seg","frameOffset":257,"offset":302,"sequence":2,"type":"put","keyspace":"Contact","keyHex":"0000000000000001","key":null,"entity":"Contact","id":1,"version":1,"object":{"email":"ann@example.com","nickname":"O'Brien, \"Annie\"\nsecond line","age":41,"score":2.5,"active":false,"birthday":"2001-09-09T01:46:40.250Z","avatar":"0001feff","token":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}}"#
                + "\n")
    }

    @Test func statsCountObjectsPerEntity() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let result = try CLI.run(["stats", path])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                segments             1
                hint files           1
                file bytes           576 B
                live bytes           217 B
                dead bytes           359 B
                space amplification  2.65x
                last sequence        4
                schema version       1

                ENTITY    OBJECTS
                Employee        2

                INDEX                  ENTRIES  MEMORY
                Employee(designation)        2   221 B

                KEYSPACE         KEYS  LIVE BYTES
                Employee            2          50
                logbook.history     1          15
                logbook.meta        3          74
                logbook.schema      1          50

                """)
    }

    @Test func verifyReportsAnObjectRecordThatDoesNotDecode() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let store = try Stores.openStore(path)
        try store.put([0x01, 0x01, 0xFF], for: [0, 0, 0, 0, 0, 0, 0, 9], in: "Employee")
        try store.close()
        let result = try CLI.run(["verify", path])
        #expect(result.status == 1)
        #expect(
            result.stdout.hasPrefix(
                "error: \(segmentFiles(path)[0]) at offset 654: object record does not decode"))
        let clean = dir.child("clean")
        try ObjectStores.employees(at: clean)
        let ok = try CLI.run(["verify", clean])
        #expect(ok.status == 0)
        #expect(ok.stdout.contains("4 object records decoded"))
    }

    @Test func damagedSchemaRecordIsReportedAndRawRecordsStillShow() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let store = try Stores.openStore(path)
        try store.put([0x01, 0xFF, 0xFF, 0x03], for: [0, 0, 0, 1], in: "logbook.schema")
        try store.close()
        let verify = try CLI.run(["verify", path])
        #expect(verify.status == 1)
        #expect(
            verify.stdout.hasPrefix(
                "error: \(segmentFiles(path)[0]) at offset 654: the stored schema does not decode"))
        let stats = try CLI.run(["stats", path])
        #expect(stats.status == 1)
        #expect(stats.stdout.contains("schema version       damaged: does not decode"))
        #expect(stats.stderr.hasPrefix("logbook: the stored schema does not decode"))
        let dump = try CLI.run(["dump", path, "--entity", "Employee", "--limit", "1"])
        #expect(dump.status == 0)
        #expect(dump.stdout.contains("0x0000000000000001"))
        #expect(dump.stderr.hasPrefix("logbook: warning: the stored schema does not decode"))
        let filtered = try CLI.run(["dump", path, "--where", "salary > 1"])
        #expect(filtered.status == 1)
        #expect(
            filtered.stderr.hasPrefix("logbook: --where needs a Logbook schema, and the stored"))
    }
}
