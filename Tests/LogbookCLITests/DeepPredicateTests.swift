import Foundation
import TestSupport
import Testing

/// `logbook dump --where` with a predicate nested past the limit: a usage error naming the
/// column (exit status 2), never a crash.
@Suite struct DeepPredicateTests {
    @Test func aTenThousandFoldNotIsAUsageError() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        try ObjectStores.employees(at: dir.path)
        let result = try CLI.run([
            "dump", dir.path, "--where", String(repeating: "NOT ", count: 10_000) + "salary > 1",
        ])
        #expect(!result.crashed)
        #expect(result.status == 2, "\(result.stderr.prefix(300))")
        #expect(result.stderr.contains("column 397"))
    }
}
