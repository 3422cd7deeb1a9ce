import Foundation
import Logbook

/// What the replica's tests and the sync child share: a schema of companies and their people
/// (every attribute type, a unique attribute, a to-one relationship and its to-many inverse),
/// and databases of their own on the scratch server of `.ci/postgres`.
public enum SyncFixture {
    public static let schema = Schema([
        Entity(
            name: "Company",
            attributes: [
                AttributeDescription("name", .string, unique: true),
                AttributeDescription("city", .string, optional: true),
            ],
            relationships: [
                RelationshipDescription(
                    "people", destination: "Person", toMany: true, inverse: "company")
            ]),
        Entity(
            name: "Person",
            attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("salary", .integer, defaultValue: .integer(0)),
                AttributeDescription("score", .double, defaultValue: .double(0)),
                AttributeDescription("active", .bool, defaultValue: .bool(true)),
                AttributeDescription("born", .date, optional: true),
                AttributeDescription("photo", .data, optional: true),
                AttributeDescription("token", .uuid, optional: true),
                AttributeDescription("email", .string, optional: true, unique: true),
            ],
            relationships: [
                RelationshipDescription("company", destination: "Company", inverse: "people")
            ]),
    ])

    static let environment = ProcessInfo.processInfo.environment

    /// Whether `.ci/postgres` gave a server.
    public static let isAvailable =
        environment["LOGBOOK_TEST_PG_SOCKET_DIR"] != nil
        && environment["LOGBOOK_TEST_PG_PORT"] != nil

    /// A database of its own, made empty on the scratch server; ``drop()`` removes it.
    public struct Database: Sendable {
        public let name: String
        /// A URL for it, as the superuser over the server's socket.
        public let url: String

        /// Settings for it.
        package var configuration: PostgreSQLConfiguration {
            get throws { try PostgreSQLConfiguration(url: url, environment: [:]) }
        }

        /// A connection to it.
        package func connect() throws -> PostgreSQLConnection {
            try PostgreSQLConnection.connect(try configuration)
        }

        /// Drops it (ending its sessions).
        public func drop() {
            guard let admin = try? SyncFixture.adminConnection() else { return }
            defer { admin.close() }
            _ = try? admin.simpleQuery("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
        }
    }

    /// The server's socket directory and port.
    static var socket: (directory: String, port: String) {
        (
            environment["LOGBOOK_TEST_PG_SOCKET_DIR"] ?? "/nonexistent",
            environment["LOGBOOK_TEST_PG_PORT"] ?? "5432"
        )
    }

    /// A superuser URL of `database`.
    public static func url(database: String) -> String {
        let (directory, port) = socket
        let host = directory.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "postgresql://postgres@\(host):\(port)/\(database)?passfile=/nonexistent"
    }

    package static func adminConnection() throws -> PostgreSQLConnection {
        try PostgreSQLConnection.connect(
            try PostgreSQLConfiguration(url: url(database: "postgres"), environment: [:]))
    }

    /// A new, empty database.
    public static func makeDatabase() throws -> Database {
        let name = "logbook_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try adminConnection()
        defer { admin.close() }
        try admin.simpleQuery("CREATE DATABASE \"\(name)\"")
        return Database(name: name, url: url(database: name))
    }
}
