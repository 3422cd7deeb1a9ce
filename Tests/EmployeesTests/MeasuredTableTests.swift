import Foundation
import TestSupport
import Testing

@testable import employees

/// `list` of every employee reads the store twice and keeps no rows
/// (``MeasuredEmployeeTable``): its table is byte for byte the one ``EmployeeTable`` lays out
/// from the same employees, whatever their text, companies and order in the log.
@Suite struct MeasuredTableTests {
    /// A string of up to `length` characters: printable ASCII mostly, with wide characters,
    /// combining marks, emoji, control characters and an em dash among them.
    private static func awkward(_ length: Int, _ rng: inout SeededGenerator) -> String {
        let extra: [Character] = ["李", "é", "\u{301}", "👩‍💻", "\u{7}", "\t", "—", "\u{7F}", "ｗ"]
        return String(
            (0..<Int.random(in: 0...length, using: &rng)).map { _ -> Character in
                Int.random(in: 0..<6, using: &rng) == 0
                    ? extra.randomElement(using: &rng)!
                    : Character(UnicodeScalar(UInt8.random(in: 0x20..<0x7F, using: &rng)))
            })
    }

    /// The table ``EmployeeTable`` lays out for every employee (read by
    /// ``EmployeeRepository/forEachEmployee(_:counted:_:)``).
    private static func keptTable(_ repository: LogbookEmployeeRepository) throws -> String {
        let output = BufferedOutput()
        let table = EmployeeTable(output: output)
        for employee in try repository.all() { try table.add(employee) }
        try table.finish()
        try output.flush()
        return output.text
    }

    /// What `list` writes for `query`, `nil` if it does not take the two-pass table.
    private static func measuredTable(
        _ repository: LogbookEmployeeRepository, _ query: EmployeeQuery = EmployeeQuery()
    ) throws -> String? {
        let output = BufferedOutput()
        guard try repository.writeTable(query, to: output, progress: nil) else { return nil }
        try output.flush()
        return output.text
    }

    @Test func theTableIsTheKeptTableByteForByte() throws {
        let seed = testSeed("theTableIsTheKeptTableByteForByte")
        var rng = SeededGenerator(seed: seed)
        let companies = ["Acme", "李氏 Trading", "Café\u{301} 👩‍💻", "Tab\tCo", "Ｗide"]
        let store = try TemporaryRepository(companies: companies.map { CompanyDraft(name: $0) })
        let measured = try Self.fill(store, companies: companies, &rng)
        #expect(measured.split(separator: "\n").count == 381, "seed \(seed)")
        // And after a reopen, from the records alone.
        store.close()
        try store.reopen()
        let reopened = try #require(store.repository)
        #expect(try Self.measuredTable(reopened) == measured, "seed \(seed)")
    }

    /// Adds, updates and deletes employees in `store` and returns the table of `list`, having
    /// checked that it is the kept table.
    private static func fill(
        _ store: TemporaryRepository, companies: [String], _ rng: inout SeededGenerator
    ) throws -> String {
        let repository = try #require(store.repository)
        var ids: [String] = []
        for _ in 0..<400 {
            let draft = EmployeeDraft(
                name: awkward(14, &rng),
                designation: Bool.random(using: &rng) ? "" : awkward(9, &rng),
                salary: Int64.random(in: -5_000...Int64.max, using: &rng),
                company: Int.random(in: 0..<3, using: &rng) == 0
                    ? companies.randomElement(using: &rng) : nil)
            ids.append(try repository.add(draft).id)
        }
        // Updated employees come late in the log; deleted ones are gone from both passes.
        for id in ids.shuffled(using: &rng).prefix(60) {
            _ = try repository.update(
                id: id, with: EmployeeChanges(name: awkward(30, &rng), salary: -1))
        }
        for id in ids.shuffled(using: &rng).prefix(20) { try repository.delete(id: id) }
        let measured = try #require(try Self.measuredTable(repository))
        #expect(measured == (try Self.keptTable(repository)))
        return measured
    }

    @Test func anEmptyStoreSaysSo() throws {
        let store = try TemporaryRepository()
        let repository = try #require(store.repository)
        #expect(try Self.measuredTable(repository) == "(no employees)\n")
        #expect(try Self.keptTable(repository) == "(no employees)\n")
    }

    /// A filter, search, company, sort or reversed order keeps the rows (``EmployeeTable``):
    /// only the list of everyone by id reads the store twice.
    @Test func onlyTheListOfEveryoneByIDIsMeasured() throws {
        let store = try TemporaryRepository(
            companies: [CompanyDraft(name: "Acme")],
            employees: DemoStory.employeesWithoutCompanies)
        let repository = try #require(store.repository)
        var queries: [EmployeeQuery] = [
            EmployeeQuery(filter: "salary > 0"), EmployeeQuery(sortKey: .salary),
            EmployeeQuery(descending: true), EmployeeQuery(company: "Acme"),
        ]
        queries.append(EmployeeQuery())
        queries[queries.count - 1].search = "a*"
        for query in queries {
            #expect(try Self.measuredTable(repository, query) == nil, "\(query)")
        }
        #expect(try Self.measuredTable(repository) == (try Self.keptTable(repository)))
    }
}
