import Foundation
import TestSupport
import Testing

@testable import Logbook

/// Connection settings from a URL, the environment and `~/.pgpass`, and that the password
/// shows nowhere: not in an error, a description, a dump or a mirror.
@Suite struct PostgreSQLConfigurationTests {
    static let secret = "s3cr:t/p@ss"

    static func configuration(_ url: String, _ environment: [String: String] = [:]) throws
        -> PostgreSQLConfiguration
    {
        try PostgreSQLConfiguration(url: url, environment: environment)
    }

    static func configurationError(_ url: String, _ environment: [String: String] = [:])
        -> PostgreSQLError?
    {
        do {
            _ = try configuration(url, environment)
            return nil
        } catch LogbookError.postgreSQL(let error) {
            return error
        } catch {
            return nil
        }
    }

    @Test func urlGivesEveryPart() throws {
        let c = try Self.configuration(
            "postgresql://ann:s3cr%3At%2Fp%40ss@db.example.com:6543/sales?sslmode=disable"
                + "&application_name=logbook%20sync&connect_timeout=7")
        #expect(c.user == "ann")
        #expect(c.password?.text == Self.secret)
        #expect(c.host == "db.example.com")
        #expect(c.port == 6543)
        #expect(c.database == "sales")
        #expect(c.sslMode == .disable)
        #expect(c.applicationName == "logbook sync")
        #expect(c.connectTimeout == .seconds(7))
        #expect(!c.isUnixSocket)
        #expect(c.endpoint == "db.example.com:6543")
    }

    @Test func socketDirectoryComesPercentEncodedOrAsAParameter() throws {
        let encoded = try Self.configuration("postgresql://%2Fvar%2Frun%2Fpostgresql:5433/app")
        #expect(encoded.host == "/var/run/postgresql")
        #expect(encoded.isUnixSocket)
        #expect(encoded.endpoint == "/var/run/postgresql/.s.PGSQL.5433")
        let parameter = try Self.configuration("postgresql://ann@/app?host=/tmp/pg&port=5499")
        #expect(parameter.host == "/tmp/pg")
        #expect(parameter.socketPath == "/tmp/pg/.s.PGSQL.5499")
        #expect(parameter.user == "ann")
        #expect(parameter.database == "app")
    }

    @Test func ipv6HostGoesInBrackets() throws {
        let c = try Self.configuration("postgres://ann@[::1]:6000/app")
        #expect(c.host == "::1")
        #expect(c.port == 6000)
        #expect(c.endpoint == "[::1]:6000")
    }

    /// What the URL leaves out comes from PGHOST and friends, then the defaults; what it says
    /// wins over the environment.
    @Test func environmentFillsWhatTheURLLeavesOut() throws {
        let environment = [
            "PGHOST": "pg.internal", "PGPORT": "5999", "PGUSER": "bob",
            "PGPASSWORD": Self.secret, "PGDATABASE": "inventory", "PGAPPNAME": "tool",
            "PGSSLMODE": "prefer", "HOME": "/home/bob",
        ]
        let c = try Self.configuration("", environment)
        #expect(c.host == "pg.internal")
        #expect(c.port == 5999)
        #expect(c.user == "bob")
        #expect(c.password?.text == Self.secret)
        #expect(c.database == "inventory")
        #expect(c.applicationName == "tool")
        #expect(c.passwordFile == "/home/bob/.pgpass")
        let url = try Self.configuration("postgresql://ann@other/sales", environment)
        #expect(url.host == "other")
        #expect(url.user == "ann")
        #expect(url.database == "sales")
        #expect(url.port == 5999)
        let bare = try Self.configuration("postgresql://", ["PGUSER": "carl"])
        #expect(bare.host == PostgreSQLConfiguration.defaultSocketDirectory)
        #expect(bare.port == 5432)
        #expect(bare.database == "carl")
        #expect(bare.password == nil)
    }

    /// The modes that require TLS are refused with how to connect instead; the others connect
    /// without it.
    @Test func sslModesThatNeedTLSAreRefusedWithAWayOut() throws {
        for mode in ["require", "verify-ca", "verify-full"] {
            let error = Self.configurationError("postgresql://ann@db/app?sslmode=\(mode)")
            #expect(error == .tlsUnsupported(sslmode: mode))
            let text = try #require(error?.description)
            #expect(text.contains("Unix socket") && text.contains("tunnel"), "\(text)")
        }
        #expect(
            Self.configurationError("", ["PGSSLMODE": "require", "PGUSER": "a"])
                == .tlsUnsupported(sslmode: "require"))
        for mode in ["disable", "allow", "prefer"] {
            #expect(
                try Self.configuration("postgresql://ann@db/app?sslmode=\(mode)").sslMode.rawValue
                    == mode)
        }
        #expect(Self.configurationError("postgresql://a@db/app?sslmode=sometimes") != nil)
    }

    @Test func requireAuthListsOrNegatesMethods() throws {
        let list = try Self.configuration("postgresql://a@db/x?require_auth=scram-sha-256,md5")
        #expect(list.allowedAuthentication == [.scramSHA256, .md5])
        let negated = try Self.configuration("postgresql://a@db/x?require_auth=!password,!none")
        #expect(negated.allowedAuthentication == [.scramSHA256, .md5])
        #expect(Self.configurationError("postgresql://a@db/x?require_auth=md5,!none") != nil)
        #expect(Self.configurationError("postgresql://a@db/x?require_auth=kerberos") != nil)
    }

    /// Every malformed URL is a configuration error that never repeats the password, even when
    /// the mistake is next to it.
    @Test func malformedURLsAreTypedErrorsWithoutThePassword() throws {
        let secret = "Zq7-hunter2"
        let bad = [
            "mysql://ann:\(secret)@db/app",
            "postgresql://ann:\(secret)@db:notaport/app",
            "postgresql://ann:\(secret)@db:99999/app",
            "postgresql://ann:\(secret)@db/app?sslmode=maybe",
            "postgresql://ann:\(secret)@db/app?pasword=\(secret)",
            "postgresql://ann:\(secret)@db/app?password",
            "postgresql://ann:\(secret)%zz@db/app",
            "postgresql://ann:\(secret)%00@db/app",
            "postgresql://ann:\(secret)@db1,db2/app",
            "postgresql://ann:\(secret)@[::1/app",
            "postgresql://ann:\(secret)@db/app?connect_timeout=soon",
            "postgresql://ann:\(secret)@db/app?client_encoding=LATIN1",
        ]
        for url in bad {
            let error = try #require(Self.configurationError(url), "\(url) was accepted")
            #expect(!error.description.contains(secret), "\(error)")
            #expect(!LogbookError.postgreSQL(error).description.contains(secret))
            #expect(!"\(LogbookError.postgreSQL(error))".contains(secret))
        }
    }

    /// `description`, `debugDescription`, `dump` and the mirror of a configuration (and of its
    /// password) say whether there is a password, never what it is.
    @Test func configurationNeverShowsThePassword() throws {
        let c = try Self.configuration("postgresql://ann:Zq7-hunter2@db.example.com/app")
        var dumped = ""
        dump(c, to: &dumped)
        var dumpedPassword = ""
        dump(c.password, to: &dumpedPassword)
        let texts = [
            c.description, String(describing: c), String(reflecting: c), dumped, dumpedPassword,
            "\(c.password as Any)", String(reflecting: c.password),
            Mirror(reflecting: c).children.map { "\($0.label ?? ""): \($0.value)" }.joined(),
        ]
        for text in texts {
            #expect(!text.contains("hunter2"), "\(text)")
        }
        #expect(c.description.contains("ann@db.example.com:5432/app"))
        #expect(c.description.contains("password: set"))
    }

    // MARK: ~/.pgpass

    static func withPasswordFile(
        _ contents: String, mode: mode_t = 0o600, _ body: (String) throws -> Void
    ) throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("pgpass")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)))
        #expect(chmod(path, mode) == 0)
        try body(path)
    }

    static func lookup(
        _ path: String, host: String, port: Int = 5432, database: String, user: String
    )
        -> PasswordFile.Lookup
    {
        PasswordFile.password(
            at: path,
            for: PostgreSQLConfiguration(host: host, port: port, user: user, database: database))
    }

    @Test func passwordFileMatchesFieldsWildcardsAndEscapes() throws {
        let file = """
            # comment
            db.example.com:5432:sales:ann:first
            db.example.com:*:*:ann:second
            *:*:*:bob:p\\:w\\\\d:ignored
            \\*:5432:lit:carl:literal-star
            localhost:5432:app:dora:from-localhost
            /srv/pg:5432:app:dora:from-socket-dir

            """
        try Self.withPasswordFile(file) { path in
            #expect(
                Self.lookup(path, host: "db.example.com", database: "sales", user: "ann")
                    == .found("first"))
            #expect(
                Self.lookup(path, host: "db.example.com", port: 6000, database: "hr", user: "ann")
                    == .found("second"))
            #expect(
                Self.lookup(path, host: "anywhere", database: "x", user: "bob") == .found("p:w\\d"))
            #expect(Self.lookup(path, host: "other", database: "sales", user: "ann") == .notFound)
            // An escaped star is a literal star, not a wildcard.
            #expect(Self.lookup(path, host: "db", database: "lit", user: "carl") == .notFound)
            #expect(
                Self.lookup(path, host: "*", database: "lit", user: "carl")
                    == .found("literal-star"))
            // A socket in the default directory matches localhost; another, its own path.
            #expect(
                Self.lookup(
                    path, host: PostgreSQLConfiguration.defaultSocketDirectory, database: "app",
                    user: "dora") == .found("from-localhost"))
            #expect(
                Self.lookup(path, host: "/srv/pg", database: "app", user: "dora")
                    == .found("from-socket-dir"))
        }
    }

    /// libpq's rule: a password file group or others can access is not read.
    @Test func passwordFileOthersCanReadIsIgnored() throws {
        for mode: mode_t in [0o640, 0o604, 0o660, 0o607] {
            try Self.withPasswordFile("*:*:*:*:Zq7-hunter2\n", mode: mode) { path in
                let lookup = Self.lookup(path, host: "db", database: "x", user: "ann")
                guard case .ignored(let reason) = lookup else {
                    Issue.record("mode \(String(mode, radix: 8)) gave \(lookup)")
                    return
                }
                #expect(reason.contains("chmod 600"))
                #expect(!reason.contains("hunter2"))
            }
        }
        try Self.withPasswordFile("*:*:*:*:ok\n", mode: 0o400) { path in
            #expect(Self.lookup(path, host: "db", database: "x", user: "ann") == .found("ok"))
        }
        #expect(
            Self.lookup("/nonexistent/pgpass", host: "db", database: "x", user: "a") == .notFound)
    }
}
