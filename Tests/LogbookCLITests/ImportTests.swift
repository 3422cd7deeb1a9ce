import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

@Suite struct ImportTests {
    @Test func exportThenImportIntoANewStoreGivesIdenticalObjects() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        for build in [ObjectStores.contacts, ObjectStores.employees] {
            let source = dir.child("source-\(UUID().uuidString)")
            let copy = dir.child("copy-\(UUID().uuidString)")
            try build(source)
            let export = try CLI.run(["export", source])
            #expect(export.status == 0)
            writeFile(dir.child("objects.jsonl"), b(export.stdout))
            let result = try CLI.run(["import", copy, dir.child("objects.jsonl")])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("imported "))
            // The fixtures' ids are 1, 2, … without gaps, so the new store gives the same ones
            // and the export is identical line for line (import keeps a file's ids after the
            // store's last key, 0 in a new store).
            let again = try CLI.run(["export", copy])
            #expect(again.stdout == export.stdout)
            let verify = try CLI.run(["verify", copy])
            #expect(verify.status == 0)
        }
    }

    @Test func importFromStandardInputIntoAStoreWithASchema() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let input = """
            {"_entity":"Employee","name":"Dee","designation":"Engineer","salary":7}
            {"_entity":"Employee","name":"Eve"}

            """
        let result = try CLI.run(["import", path, "-"], input: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "imported 2 objects into \(path)\n")
        let container = try ModelContainer(for: [Employee.self], at: URL(fileURLWithPath: path))
        defer { try? container.close() }
        let names = try ModelContext(container).fetch(FetchDescriptor<Employee>()).map(\.name)
            .sorted()
        #expect(names == ["Ann", "Bo", "Dee", "Eve"])
    }

    @Test(arguments: [
        (
            "{\"_entity\":\"Employee\",\"name\":\"A\"}\n{\"_entity\":\"Boss\"}\n",
            "x.jsonl:2: no entity \"Boss\" in the schema"
        ),
        (
            "{\"_entity\":\"Employee\",\"nam\":\"A\"}\n",
            "x.jsonl:1: Employee has no attribute \"nam\""
        ),
        (
            "\n{\"_entity\":\"Employee\",\"salary\":\"high\"}\n",
            "x.jsonl:2: Employee.salary holds Int64, not the string \"high\""
        ),
        (
            "{\"_entity\":\"Employee\",\"name\":null}\n",
            "x.jsonl:1: Employee.name is required and cannot be null"
        ),
        (
            "{\"_entity\":\"Employee\",\"name\":\"A\"\n",
            "x.jsonl:1: invalid JSON at column 33: expected , or }"
        ),
        ("[1]\n", "x.jsonl:1: a line holds one JSON object"),
        ("{\"name\":\"A\"}\n", "x.jsonl:1: the object has no \"_entity\" member naming its entity"),
    ])
    func badLinesAreRefusedByLineAndNothingIsImported(input: String, message: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let before = segmentFiles(path).map(readFile)
        writeFile(dir.child("x.jsonl"), b(input))
        let result = try CLI.run(["import", path, dir.child("x.jsonl")])
        #expect(result.status == 1)
        #expect(result.stderr == "logbook: \(dir.child(message)); nothing was imported\n")
        #expect(segmentFiles(path).map(readFile) == before)
    }

    @Test func uniqueClashIsRefusedAtomically() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.contacts(at: path)
        let before = try CLI.run(["export", path]).stdout
        let input = """
            {"_entity":"Contact","email":"new@example.com"}
            {"_entity":"Contact","email":"ann@example.com"}

            """
        let result = try CLI.run(["import", path, "-"], input: input)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "logbook: standard input:2: Contact.email must be unique, and "
                + "\"ann@example.com\" is already in the store or earlier in the file; "
                + "nothing was imported\n")
        let twice = """
            {"_entity":"Contact","email":"new@example.com"}
            {"_entity":"Contact","email":"other@example.com"}
            {"_entity":"Contact","email":"new@example.com"}

            """
        let inFile = try CLI.run(["import", path, "-"], input: twice)
        #expect(inFile.status == 1)
        #expect(inFile.stderr.hasPrefix("logbook: standard input:3: Contact.email must be unique"))
        #expect(try CLI.run(["export", path]).stdout == before)
    }

    @Test func lockedStoreIsRefused() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let writer = try Stores.openStore(path)
        defer { try? writer.close() }
        let result = try CLI.run(
            ["import", path, "-"], input: "{\"_entity\":\"Employee\",\"name\":\"Z\"}\n")
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "logbook: the store at \(path) is open for writing by another process; "
                + "close it there first\n")
    }
}

extension ImportTests {
    @Test func csvExportImportsBackIntoAStoreWithTheSchema() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let source = dir.child("source")
        try ObjectStores.contacts(at: source)
        let csv = try CLI.run(["export", source, "--format", "csv"])
        writeFile(dir.child("contacts.csv"), b(csv.stdout))
        let schemaLine = try CLI.run(["export", source]).stdout.split(separator: "\n")[0]
        writeFile(dir.child("schema.jsonl"), b(schemaLine + "\n"))
        let copy = dir.child("copy")
        #expect(try CLI.run(["import", copy, dir.child("schema.jsonl")]).status == 0)
        let result = try CLI.run(["import", copy, dir.child("contacts.csv"), "--entity", "Contact"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "imported 2 objects into \(copy)\n")
        #expect(try CLI.run(["export", copy, "--format", "csv"]).stdout == csv.stdout)
    }

    @Test func csvErrorsNameTheLineWhereTheRowStarts() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let file = dir.child("e.csv")
        writeFile(file, b("id,name,salary\r\n1,\"two\nlines\",5\r\n2,Bo,lots\r\n"))
        let result = try CLI.run(["import", path, file, "--entity", "Employee"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "logbook: \(file):4: Employee.salary holds Int64, not \"lots\"; "
                + "nothing was imported\n")
        let noEntity = try CLI.run(["import", path, file])
        #expect(noEntity.status == 2)
        #expect(noEntity.stderr == "logbook: a CSV import needs --entity NAME\n")
        writeFile(file, b("name,\"unclosed\n"))
        let unclosed = try CLI.run(["import", path, file, "--entity", "Employee"])
        #expect(unclosed.stderr.contains("e.csv:1: a quote is never closed"))
    }
}

extension ImportTests {
    @Test func randomInputNeverCrashesImport() throws {
        let seed = testSeed("randomInputNeverCrashesImport")
        var rng = SeededGenerator(seed: seed)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.contacts(at: path)
        let valid = try CLI.run(["export", path]).stdout
        let csv = try CLI.run(["export", path, "--format", "csv"]).stdout
        for round in 0..<12 {
            // Damage a valid file a little, or make one of random printable noise.
            var bytes = b(round % 3 == 0 ? csv : valid)
            if round % 4 == 3 {
                bytes = (0..<200).map { _ in UInt8.random(in: 9...126, using: &rng) }
            } else {
                for _ in 0..<3 {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(
                        in: 0...255, using: &rng)
                }
            }
            let file = dir.child(round % 3 == 0 ? "x.csv" : "x.jsonl")
            writeFile(file, bytes)
            // CSV goes into the store with the schema; JSON Lines into a new one.
            let target = round % 3 == 0 ? path : dir.child("copy-\(round)")
            let result = try CLI.run(["import", target, file, "--entity", "Contact"])
            #expect(
                !result.crashed && [0, 1, 2].contains(result.status),
                "seed \(seed) round \(round): \(result.status) \(result.stderr)")
        }
    }
}

extension ImportTests {
    /// An import saved in many pieces (`LOGBOOK_IMPORT_PIECE=7`) into one streaming commit:
    /// a bad line after several pieces leaves nothing; a good file lands whole.
    @Test func aFailureAfterManyPiecesImportsNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        let before = try CLI.run(["export", path]).stdout
        var lines = (0..<100).map { #"{"_entity":"Employee","name":"E\#($0)","salary":\#($0)}"# }
        writeFile(dir.child("good.jsonl"), b(lines.joined(separator: "\n") + "\n"))
        lines.append(#"{"_entity":"Employee","salary":"many"}"#)
        writeFile(dir.child("bad.jsonl"), b(lines.joined(separator: "\n") + "\n"))
        let logbook = try #require(CLI.executable)
        let bad = try Shell.run(
            logbook, ["import", path, dir.child("bad.jsonl")],
            environment: ["LOGBOOK_IMPORT_PIECE": "7"])
        #expect(bad.status == 1)
        #expect(
            bad.stderr.hasSuffix(
                "bad.jsonl:101: Employee.salary holds Int64, not the string \"many\"; nothing was imported\n"
            ))
        #expect(try CLI.run(["export", path]).stdout == before)
        #expect(try CLI.run(["verify", path]).status == 0)
        let good = try Shell.run(
            logbook, ["import", path, dir.child("good.jsonl")],
            environment: ["LOGBOOK_IMPORT_PIECE": "7"])
        #expect(good.status == 0, "\(good.stderr)")
        let after = try CLI.run(["export", path, "--format", "csv"]).stdout
        #expect(after.split(separator: "\r\n").count == 1 + 2 + 100)
    }
}

extension ImportTests {
    /// The store's secondary index (Employee.designation) after imports in many pieces: a
    /// failed import leaves what it answers unchanged, a good one adds every object to it.
    @Test func indexedFetchesSeeExactlyTheImportedObjects() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try ObjectStores.employees(at: path)
        func engineers() throws -> Int {
            let container = try ModelContainer(
                for: [Employee.self], at: URL(fileURLWithPath: path))
            defer { try? container.close() }
            return try ModelContext(container).fetch(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.designation == "Engineer" })
            ).count
        }
        #expect(try engineers() == 1)
        var lines = (0..<50).map {
            #"{"_entity":"Employee","name":"E\#($0)","designation":"Engineer","salary":\#($0)}"#
        }
        writeFile(dir.child("good.jsonl"), b(lines.joined(separator: "\n") + "\n"))
        lines.append(#"{"_entity":"Employee","designation":7}"#)
        writeFile(dir.child("bad.jsonl"), b(lines.joined(separator: "\n") + "\n"))
        let logbook = try #require(CLI.executable)
        let piece = ["LOGBOOK_IMPORT_PIECE": "7"]
        let bad = try Shell.run(
            logbook, ["import", path, dir.child("bad.jsonl")], environment: piece)
        #expect(bad.status == 1)
        #expect(try engineers() == 1)
        let good = try Shell.run(
            logbook, ["import", path, dir.child("good.jsonl")], environment: piece)
        #expect(good.status == 0, "\(good.stderr)")
        #expect(try engineers() == 51)
        #expect(try engineers() == 51, "read again from the sidecar the last open wrote")
    }
}
