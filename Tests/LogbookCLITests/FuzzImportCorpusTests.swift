import Foundation
import Logbook
import TestSupport
import Testing

/// Replays the committed corpus of the `import` fuzz target (Tests/Fuzz/corpus/import) on every
/// `swift test`, through the built `logbook import` (the fuzz body itself is compiled with the
/// tool's sources by Tests/Fuzz/build.sh): every input is imported or refused with one line,
/// never a crash. Also the target's findings, each a line the fast JSON Lines parser took.
@Suite struct FuzzImportCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/import").path

    /// The inputs libFuzzer generated (named by their SHA-1) that a run imports: every fourth
    /// in the default tier, from a seeded offset (a `logbook` process each, about a third of it
    /// loading the debug build's libraries: the 260 were 3 s of CPU); all in the long one. The
    /// named inputs (seeds, findings) run in both.
    static let stride = TestTier.pick(quick: 4, long: 1)

    /// Whether `name` is one libFuzzer generated: 40 hex digits.
    static func isGenerated(_ name: String) -> Bool {
        name.utf8.count == 40
            && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The fuzz target's schema (Tests/Fuzz/FuzzImport.swift), in a new store at `path`.
    private func store(at path: String) throws {
        let schema = Schema([
            Entity(
                name: "Employee",
                attributes: [
                    AttributeDescription("name", .string),
                    AttributeDescription("designation", .string, optional: true),
                    AttributeDescription("salary", .integer, defaultValue: .integer(0)),
                    AttributeDescription("score", .double),
                    AttributeDescription("active", .bool),
                    AttributeDescription("joined", .date, optional: true),
                    AttributeDescription("photo", .data, optional: true),
                    AttributeDescription("token", .uuid, optional: true),
                    AttributeDescription("email", .string, optional: true, unique: true),
                ]),
            Entity(name: "Company", attributes: [AttributeDescription("name", .string)]),
        ])
        try ModelContainer(schema: schema, at: URL(fileURLWithPath: path)).close()
    }

    @Test func importTargetCorpusImportsOrIsRefusedCleanly() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus).sorted()
        #expect(names.count >= 20)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try store(at: dir.child("store"))
        let offset = Int(testSeed("import corpus") % UInt64(Self.stride))
        var generated = 0
        for (i, name) in names.enumerated() {
            if Self.isGenerated(name) {
                generated += 1
                guard (generated - 1) % Self.stride == offset else { continue }
            }
            let input = readFile(Self.corpus + "/" + name)
            guard let mode = input.first else { continue }
            let file = dir.child("input-\(i)")
            writeFile(file, Array(input.dropFirst()))
            var arguments = [
                "import", mode & 2 != 0 ? dir.child("new-\(i)") : dir.child("store"), file,
            ]
            if mode & 1 != 0 {
                arguments += ["--format", "csv", "--entity", "Employee"]
            } else {
                arguments += ["--format", "jsonl"]
            }
            let result = try CLI.run(arguments)
            #expect(!result.crashed, "\(name)")
            #expect(result.status == 0 || result.status == 1, "\(name): \(result.stderr)")
            if result.status == 1 {
                #expect(
                    result.stderr.split(separator: "\n").count == 1, "\(name): \(result.stderr)")
            }
        }
        #expect(try CLI.run(["verify", dir.child("store")]).status == 0)
    }

    /// `crash-fast-parser-number-with-nul`: the fast parser read `"score":0` followed by NUL
    /// bytes as 0 (`Double(_:)` stops at a NUL), so a line that is not JSON was imported. It
    /// now takes only JSON's numbers, as the JSON parser does; so do these.
    @Test(arguments: [
        #""score":0\#u{0}\#u{0}"#, #""score":01"#, #""salary":01,"score":1"#, #""score":0x10"#,
        #""score":+1"#, #""score":.5"#, #""score":1."#, #""score":1e"#, #""salary":-01,"score":1"#,
    ])
    func aLineWithANumberJSONDoesNotWriteIsRefused(_ member: String) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try store(at: dir.child("store"))
        let file = dir.child("in.jsonl")
        let line =
            #"{"_entity":"Employee","name":"A","#
            + (member.contains("score") ? member : member + #","score":1"#) + #","active":true}"#
        writeFile(file, Array(line.utf8) + [10])
        let result = try CLI.run(["import", dir.child("store"), file])
        #expect(result.status == 1, "\(line): \(result.stdout)")
        #expect(result.stderr.contains(":1: invalid JSON"), "\(result.stderr)")
    }
}
