import Foundation
import Testing

/// Streaming changed how `list` makes its output, not what it says: the executable's output
/// for `Fixtures/ListGolden` is byte for byte what the app printed before (see
/// Fixtures/README.md).
@Suite struct ListGoldenTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ListGolden")

    @Test func listAndCompanyListPrintExactlyWhatTheyPrintedBefore() throws {
        let employees = try EmployeesProcess()
        defer { employees.removeDirectory() }
        let out = employees.directory.appendingPathComponent("out")
        let script = try employees.run(
            [
                Self.fixture.appendingPathComponent("run.sh").path, employees.executable.path,
                employees.storePath, out.path,
            ], tool: URL(fileURLWithPath: "/bin/bash"))
        try #require(script.status == 0, "\(script.standardError)")
        let expected = Self.fixture.appendingPathComponent("expected")
        let names = try FileManager.default.contentsOfDirectory(atPath: expected.path).sorted()
        #expect(names.count == 57)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == names)
        for name in names {
            let before = try Data(contentsOf: expected.appendingPathComponent(name))
            let now = try Data(contentsOf: out.appendingPathComponent(name))
            #expect(
                now == before,
                "\(name) differs:\n\(String(decoding: now, as: UTF8.self))\n--- before:\n\(String(decoding: before, as: UTF8.self))"
            )
        }
    }
}
