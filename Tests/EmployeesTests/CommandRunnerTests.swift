import Foundation
import Testing

@testable import employees

/// The subcommands on an in-memory repository: what they print and what they change.
@Suite struct CommandRunnerTests {
    private final class Output {
        var lines: [String] = []
    }

    private func run(_ arguments: [String], on repository: InMemoryEmployeeRepository)
        throws(EmployeesError) -> [String]
    {
        let output = Output()
        let runner = CommandRunner(repository: repository, print: { output.lines.append($0) })
        try runner.run(try ArgumentParser.parse(arguments).command)
        return output.lines
    }

    private func sample() -> InMemoryEmployeeRepository {
        InMemoryEmployeeRepository(DemoStory.employees)
    }

    @Test func addPrintsTheNewID() throws {
        let repository = InMemoryEmployeeRepository()
        #expect(try run(["add", "--name", "Ann", "--salary", "5"], on: repository) == ["E1"])
        #expect(try repository.employee(id: "E1").designation == "")
    }

    @Test func listPrintsATable() throws {
        let lines = try run(["list"], on: sample())
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("ID  NAME — DESIGNATION"))
        #expect(lines[1].hasPrefix("E1  Ann Lee — Engineer") && lines[1].hasSuffix(" 2000000"))
        #expect(Set(lines.map(\.count)).count == 1)
    }

    @Test func listJSONHasIdNameDesignationSalary() throws {
        let lines = try run(
            ["list", "--json", "--where", "salary > 1000000", "--sort", "salary"], on: sample())
        let data = Data(lines.joined(separator: "\n").utf8)
        let objects = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(objects.map { $0["name"] as? String } == ["Kevin Park", "Ann Lee"])
        #expect(objects.first?["salary"] as? Int == 1_500_000)
        #expect(objects.first?["id"] as? String == "E2")
        #expect(objects.first?["designation"] as? String == "Designer")
    }

    @Test func emptyListJSONIsAnEmptyArray() throws {
        #expect(try run(["list", "--json"], on: InMemoryEmployeeRepository()) == ["[]"])
    }

    @Test func sortDescending() throws {
        let lines = try run(["list", "--sort", "name", "--desc"], on: sample())
        #expect(lines.dropFirst().map { String($0.prefix(2)) } == ["E3", "E2", "E1"])
    }

    @Test func updateAndDeleteSayWhatTheyDid() throws {
        let repository = sample()
        #expect(
            try run(["update", "E1", "--salary", "3000000"], on: repository) == [
                "updated E1: Ann Lee — Engineer, salary 3000000"
            ])
        #expect(try run(["delete", "E2"], on: repository) == ["deleted E2: Kevin Park — Designer"])
        #expect(try repository.all().map(\.id) == ["E1", "E3"])
    }

    @Test func unknownIDIsARuntimeError() {
        #expect(throws: EmployeesError.unknownEmployee(id: "E9")) {
            try run(["delete", "E9"], on: sample())
        }
        #expect(EmployeesError.unknownEmployee(id: "E9").exitCode == 1)
    }

    @Test func demoTellsTheSeedsStory() throws {
        let output = Output()
        try DemoStory(
            repository: InMemoryEmployeeRepository(), print: { output.lines.append($0) },
            dumpStore: nil
        ).run()
        let text = output.lines.joined(separator: "\n")
        #expect(text.contains("salary 2000000 → 3000000"))
        #expect(text.contains("updated E1: Ann Lee — Engineer, salary 3000000"))
        #expect(text.contains("deleted E2: Kevin Park — Designer"))
        #expect(output.lines.filter { $0.hasPrefix("== ") }.count == 7)
        #expect(output.lines.suffix(2).joined().contains("skipped: the logbook tool is not built"))
    }
}
