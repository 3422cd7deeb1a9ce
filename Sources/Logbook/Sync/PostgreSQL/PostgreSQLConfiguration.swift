import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where and how Logbook's PostgreSQL client connects: the server, the login, and the limits
/// that keep a broken or hostile server from exhausting the client.
///
/// Build one from a `postgresql://` URL and the `PG…` environment variables with
/// ``init(url:environment:)``, or field by field. The password is never part of
/// ``description``, `dump` or any error; a login without one looks it up in `~/.pgpass`
/// (``passwordFile``) when the server asks for it.
///
/// TLS is not implemented: `sslmode` `disable`, `allow` and `prefer` connect without it (a
/// `prefer` that finds no TLS here falls back, as libpq does when the server has none); the
/// modes that require it are refused with ``PostgreSQLError/tlsUnsupported(sslmode:)``.
package struct PostgreSQLConfiguration: Sendable {
    /// libpq's `sslmode` values.
    package enum SSLMode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"

        /// Whether the mode insists on TLS (and so cannot be honoured here).
        package var requiresTLS: Bool {
            self == .require || self == .verifyCA || self == .verifyFull
        }
    }

    /// A way of logging in the server may ask for; ``allowedAuthentication`` lists those the
    /// client accepts (libpq's `require_auth`).
    package enum AuthenticationMethod: String, Sendable, CaseIterable {
        /// No password asked (`trust`, `peer`).
        case none
        /// The password in clear text (`password`).
        case password
        /// An MD5 hash salted by the server (`md5`).
        case md5
        /// SCRAM-SHA-256, which proves the password without sending it (`scram-sha-256`).
        case scramSHA256 = "scram-sha-256"
    }

    /// A DNS name, an IP address, or the absolute path of the directory that holds the server's
    /// Unix socket (`.s.PGSQL.<port>`).
    package var host: String
    /// The TCP port, and the number in the Unix socket's file name.
    package var port: Int
    /// The role to log in as.
    package var user: String
    /// The database to connect to.
    package var database: String
    /// The password, if one was given (URL or `PGPASSWORD`); otherwise ``passwordFile`` is read
    /// when the server asks for one.
    package var password: PostgreSQLPassword?
    /// The password file to consult when no password was given (`PGPASSFILE`, else
    /// `~/.pgpass`); `nil` for none. It is ignored unless it is a plain file only its owner can
    /// read or write, as libpq does.
    package var passwordFile: String?
    /// The `sslmode`.
    package var sslMode: SSLMode = .prefer
    /// Reported to the server as `application_name` (seen in `pg_stat_activity`).
    package var applicationName: String?
    /// Server options sent at startup (`options`, as in `-c search_path=app`).
    package var options: String?
    /// How long to wait for the connection and the login; `nil` waits as long as the system does.
    package var connectTimeout: Duration? = .seconds(30)
    /// How long to wait for any answer once connected; `nil` waits forever. When it passes, the
    /// connection is closed with ``PostgreSQLError/timedOut(operation:seconds:)``.
    package var responseTimeout: Duration?
    /// The login methods to accept; `nil` accepts all the client speaks. A server that asks
    /// for another, or lets the client in without one of these, is refused.
    package var allowedAuthentication: Set<AuthenticationMethod>?
    /// The largest message the client reads from the server; a longer one closes the
    /// connection with ``PostgreSQLError/protocolViolation(reason:)``. A row must fit.
    package var maximumMessageBytes = 256 << 20
    /// The most a result collected in memory (``PostgreSQLConnection/query(_:_:format:)``,
    /// ``PostgreSQLConnection/simpleQuery(_:)``) may hold, counted as its rows' bytes plus 64
    /// per row; past it the connection is closed with
    /// ``PostgreSQLError/resultTooLarge(limit:)``. Calls that hand over one row at a time have
    /// no such limit.
    package var maximumResultBytes = 1 << 30
    /// How many notifications wait for ``PostgreSQLConnection/nextNotification(timeout:)``
    /// before the oldest are dropped (and counted in
    /// ``PostgreSQLConnection/droppedNotificationCount``).
    package var maximumPendingNotifications = 100_000

    /// A configuration with the given fields and the defaults for the rest.
    package init(
        host: String, port: Int = 5432, user: String, database: String? = nil,
        password: String? = nil
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.database = database ?? user
        self.password = password.map(PostgreSQLPassword.init)
    }

    /// Whether ``host`` names a Unix socket directory rather than a network host.
    package var isUnixSocket: Bool { host.hasPrefix("/") }

    /// The socket's path, or `host:port`: what errors name.
    package var endpoint: String {
        if isUnixSocket { return socketPath }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The Unix socket's path (meaningful when ``isUnixSocket``).
    var socketPath: String {
        (host.hasSuffix("/") ? host : host + "/") + ".s.PGSQL.\(port)"
    }

    /// Where libpq looks for the server's socket when no host is given: Debian's directory
    /// when it exists, else `/tmp`.
    package static var defaultSocketDirectory: String {
        var isDirectory: ObjCBool = false
        let debian = "/var/run/postgresql"
        return FileManager.default.fileExists(atPath: debian, isDirectory: &isDirectory)
            && isDirectory.boolValue ? debian : "/tmp"
    }
}

extension PostgreSQLConfiguration: CustomStringConvertible, CustomReflectable {
    /// The settings as a URL without the password (`password` says only whether one is set).
    package var description: String {
        var text = "postgresql://\(user)@"
        text += isUnixSocket ? "" : (host.contains(":") ? "[\(host)]" : host)
        text += ":\(port)/\(database)?"
        if isUnixSocket { text += "host=\(host)&" }
        text += "sslmode=\(sslMode.rawValue)"
        if let applicationName { text += "&application_name=\(applicationName)" }
        text += password == nil ? " (no password)" : " (password: set)"
        return text
    }

    /// Every field but the password's value.
    package var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "user": user, "database": database,
                "password": password == nil ? "none" : "set", "passwordFile": passwordFile as Any,
                "sslMode": sslMode, "applicationName": applicationName as Any,
                "options": options as Any, "connectTimeout": connectTimeout as Any,
                "responseTimeout": responseTimeout as Any,
                "allowedAuthentication": allowedAuthentication as Any,
                "maximumMessageBytes": maximumMessageBytes,
                "maximumResultBytes": maximumResultBytes,
                "maximumPendingNotifications": maximumPendingNotifications,
            ], displayStyle: .struct)
    }
}

/// A password that does not show itself: its `description`, `debugDescription` and mirror say
/// only that it is redacted, so printing or dumping a configuration cannot leak it.
package struct PostgreSQLPassword: Sendable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    /// The password. Read only by the login.
    let text: String

    /// Wraps `text`.
    package init(_ text: String) { self.text = text }

    package var description: String { "<redacted>" }
    package var debugDescription: String { "<redacted>" }
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
