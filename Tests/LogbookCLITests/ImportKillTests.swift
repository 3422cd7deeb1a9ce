import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

/// `import` killed with SIGKILL at random points, while it writes the pieces of its one
/// streaming commit: afterwards the store holds every imported object or none of them,
/// verifies clean (an unfinished commit is a torn tail) and opens for writing.
@Suite struct ImportKillTests {
    /// Objects imported: 5,000 in the default tier (five pieces of 1,000), 20,000 in the long one.
    static let objects = TestTier.pick(quick: 5_000, long: 20_000)

    @Test func importKilledAtRandomPointsIsAllOrNothing() throws {
        let seed = testSeed("importKilledAtRandomPointsIsAllOrNothing")
        var rng = SeededGenerator(seed: seed)
        let logbook = try #require(CLI.executable)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let base = dir.child("base")
        try ObjectStores.employees(at: base)
        let file = dir.child("employees.jsonl")
        var lines = ""
        for n in 0..<Self.objects {
            lines +=
                #"{"_entity":"Employee","name":"E\#(n)","designation":"D","salary":\#(n)}"# + "\n"
        }
        writeFile(file, b(lines))
        // How long an import takes here, so that kills land before, during and after it.
        let started = Date()
        let whole = try copy(base, to: dir.child("whole"))
        #expect(try CLI.run(["import", whole, file]).status == 0)
        let duration = Date().timeIntervalSince(started)
        #expect(try employees(in: whole) == 2 + Self.objects)
        var outcomes: Set<Int> = []
        for round in 0..<10 {
            let store = try copy(base, to: dir.child("store-\(round)"))
            let delay = Double.random(in: 0...(duration * 1.2), using: &rng)
            let killed = try Shell.run(
                "/bin/sh",
                [
                    "-c",
                    "\"$0\" import \"$1\" \"$2\" & pid=$!; sleep \(delay); kill -9 $pid; wait $pid",
                    logbook, store, file,
                ],
                // Pieces of 1,000: kills land between the pieces of one streaming commit.
                environment: ["SWIFT_BACKTRACE": "enable=no", "LOGBOOK_IMPORT_PIECE": "1000"])
            let count = try employees(in: store)
            #expect(
                count == 2 || count == 2 + Self.objects,
                "seed \(seed) round \(round): killed after \(delay) s (status \(killed.status)), \(count) employees"
            )
            outcomes.insert(count)
            let verify = try CLI.run(["verify", store])
            #expect(verify.status == 0, "seed \(seed) round \(round): \(verify.stdout)")
            let container = try ModelContainer(
                for: [Employee.self], at: URL(fileURLWithPath: store))
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Employee>()) == count)
            try container.close()
        }
        print("importKilledAtRandomPointsIsAllOrNothing: outcomes \(outcomes.sorted())")
    }

    private func copy(_ source: String, to destination: String) throws -> String {
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }

    /// The live Employees as `logbook export` sees them.
    private func employees(in store: String) throws -> Int {
        let export = try CLI.run(["export", store, "--entity", "Employee", "--format", "csv"])
        return export.stdout.split(separator: "\r\n").count - 1
    }
}
