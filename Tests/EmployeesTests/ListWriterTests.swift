import Foundation
import TestSupport
import Testing

@testable import employees

/// The streaming writers of `list`: the JSON is exactly what `JSONEncoder` wrote, and the table
/// is the same whether its rows stay in memory or go through the temporary file.
@Suite struct ListWriterTests {
    /// What the app wrote before it streamed: `JSONEncoder`, pretty-printed, keys sorted,
    /// slashes unescaped, plus a line break.
    private static func encoded(_ employees: [EmployeeRecord]) throws -> String {
        struct Company: Encodable {
            var id: String
            var name: String
        }
        struct Row: Encodable {
            var company: Company?
            var designation: String
            var id: String
            var name: String
            var salary: Int64
            enum Keys: String, CodingKey { case company, designation, id, name, salary }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(company, forKey: .company)
                try container.encode(designation, forKey: .designation)
                try container.encode(id, forKey: .id)
                try container.encode(name, forKey: .name)
                try container.encode(salary, forKey: .salary)
            }
        }
        guard !employees.isEmpty else { return "[]\n" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let rows = employees.map {
            Row(
                company: $0.company.map { Company(id: $0.id, name: $0.name) },
                designation: $0.designation, id: $0.id, name: $0.name, salary: $0.salary)
        }
        return String(decoding: try encoder.encode(rows), as: UTF8.self) + "\n"
    }

    /// A string of `length` characters drawn from ASCII (controls included), quotes,
    /// backslashes, slashes and a few non-ASCII ones.
    private static func awkward(_ length: Int, _ rng: inout SeededGenerator) -> String {
        let extra: [Character] = ["\"", "\\", "/", "é", "李", "👩‍💻", "\u{2028}", "\u{7F}", "\u{301}"]
        return String(
            (0..<length).map { _ -> Character in
                Int.random(in: 0..<4, using: &rng) == 0
                    ? extra.randomElement(using: &rng)!
                    : Character(UnicodeScalar(UInt8.random(in: 0..<0x80, using: &rng)))
            })
    }

    private static func employees(_ count: Int, seed: UInt64) -> [EmployeeRecord] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { n in
            EmployeeRecord(
                id: "Employee/\(n + 1)", name: awkward(Int.random(in: 0..<20, using: &rng), &rng),
                designation: Bool.random(using: &rng) ? "" : awkward(8, &rng),
                salary: Int64.random(in: Int64.min...Int64.max, using: &rng),
                company: Bool.random(using: &rng)
                    ? CompanyLink(id: "Company/\(n % 3 + 1)", name: awkward(6, &rng)) : nil)
        }
    }

    @Test(arguments: [0, 1, 2, 300])
    func jsonIsWhatJSONEncoderWrote(count: Int) throws {
        let seed = testSeed("jsonIsWhatJSONEncoderWrote") &+ UInt64(count)
        let employees = Self.employees(count, seed: seed)
        let output = BufferedOutput()
        let json = EmployeeJSON(output: output)
        for employee in employees { try json.add(employee) }
        try json.finish()
        #expect(output.text == (try Self.encoded(employees)), "seed \(seed)")
    }

    @Test func everyControlCharacterIsEscapedAsJSONEncoderDoes() throws {
        let all = String((0..<0x80).map { Character(UnicodeScalar(UInt8($0))) })
        let employee = EmployeeRecord(id: "Employee/1", name: all, designation: "", salary: 0)
        let output = BufferedOutput()
        let json = EmployeeJSON(output: output)
        try json.add(employee)
        try json.finish()
        #expect(output.text == (try Self.encoded([employee])))
    }

    /// The table of `employees` with rows kept in memory up to `memoryLimit` bytes.
    private static func table(_ employees: [EmployeeRecord], memoryLimit: Int) throws -> String {
        let output = BufferedOutput()
        let table = EmployeeTable(output: output, memoryLimit: memoryLimit)
        for employee in employees { try table.add(employee) }
        try table.finish()
        try output.flush()
        return output.text
    }

    @Test func theTableIsTheSameThroughTheTemporaryFile() throws {
        let seed = testSeed("theTableIsTheSameThroughTheTemporaryFile")
        let employees = Self.employees(500, seed: seed)
        let inMemory = try Self.table(employees, memoryLimit: 1 << 30)
        for limit in [1, 100, 4096] {
            #expect(try Self.table(employees, memoryLimit: limit) == inMemory, "seed \(seed)")
        }
        #expect(inMemory.split(separator: "\n").count == 501)
    }

    @Test func aRowLongerThanTheChunksOfTheTemporaryFile() throws {
        // The file is read back 1 MiB at a time.
        var long = Self.employees(2, seed: 1)
        long[1].name = String(repeating: "long ", count: 230_000)
        long[1].designation = ""
        #expect(
            try Self.table(long, memoryLimit: 1) == (try Self.table(long, memoryLimit: 1 << 30)))
        #expect(try Self.table([], memoryLimit: 1) == "(no employees)\n")
    }
}
