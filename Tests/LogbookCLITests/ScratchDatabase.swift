import Foundation
import Testing

/// A database of one test's own on the PostgreSQL server that `LOGBOOK_TEST_PSQL` names, created
/// empty and dropped when the last reference goes.
///
/// Suites run at the same time: two tests that shared the server's one database shared its table
/// names, so one test's `DROP TABLE "Contact"` removed the table another was loading
/// (`relation "Contact" does not exist`). A database per test keeps each one's tables its own.
/// `LOGBOOK_TEST_PSQL` must name its database with `-d` (as `.ci/postgres` does): that is the
/// database connected to for `CREATE DATABASE` and `DROP DATABASE`.
final class ScratchDatabase: Sendable {
    /// The `psql` executable.
    let psql: String
    /// `psql`'s connection arguments, to this database.
    let arguments: [String]
    private let admin: [String]
    private let name: String

    /// A new empty database, or `nil` when `LOGBOOK_TEST_PSQL` is unset or `psql` is missing.
    init?() throws {
        guard let connection = ProcessInfo.processInfo.environment["LOGBOOK_TEST_PSQL"],
            let psql = ["/usr/bin/psql", "/usr/local/bin/psql"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return nil }
        self.psql = psql
        admin = connection.split(separator: " ").map(String.init)
        var others: [String] = []
        var skipNext = false
        for argument in admin {
            if skipNext {
                skipNext = false
            } else if argument == "-d" || argument == "--dbname" {
                skipNext = true
            } else if !argument.hasPrefix("--dbname=") {
                others.append(argument)
            }
        }
        name = "logbook_test_" + UUID().uuidString.lowercased().filter { $0 != "-" }
        arguments = others + ["-d", name]
        let create = try Shell.run(
            psql,
            admin + ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", "CREATE DATABASE \"\(name)\""])
        #expect(create.status == 0, "\(create.stderr)")
    }

    deinit {
        _ = try? Shell.run(
            psql, admin + ["-X", "-q", "-c", "DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)"])
    }
}
