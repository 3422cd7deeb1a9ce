import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension PostgreSQLConfiguration {
    /// The settings of a libpq connection URL, completed from the environment as libpq does.
    ///
    /// `postgresql://[user[:password]@][host][:port][/dbname][?param=value&…]` (or
    /// `postgres://`), every part percent-decoded. The host may be a socket directory, either
    /// percent-encoded (`postgresql://%2Fvar%2Frun%2Fpostgresql/db`) or as `?host=/path`; an
    /// IPv6 address goes in brackets. Parameters: `host`, `port`, `user`, `password`, `dbname`,
    /// `sslmode`, `application_name`, `fallback_application_name`, `connect_timeout` (seconds),
    /// `passfile`, `require_auth`, `options`, and `client_encoding` (UTF8 only). Parts the URL
    /// leaves out come from `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE`,
    /// `PGSSLMODE`, `PGAPPNAME`, `PGPASSFILE`, `PGCONNECT_TIMEOUT`, `PGREQUIREAUTH` and
    /// `PGOPTIONS`, then the defaults: the default socket directory, port 5432, the system
    /// user, a database named as the user, `~/.pgpass`. An empty `url` takes everything from
    /// there.
    ///
    /// - Throws: ``LogbookError/postgreSQL(_:)`` with
    ///   ``PostgreSQLError/configuration(reason:)`` for a malformed URL or value (the message
    ///   never repeats the URL, which may hold a password), or
    ///   ``PostgreSQLError/tlsUnsupported(sslmode:)`` for an `sslmode` that requires TLS.
    package init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws
    {
        var settings = try url.isEmpty ? [:] : Self.parseURL(url)
        for (key, variable) in Self.environmentVariables where settings[key] == nil {
            if let value = environment[variable], !value.isEmpty { settings[key] = value }
        }
        if settings["application_name"] == nil {
            settings["application_name"] = settings["fallback_application_name"]
        }
        let user = try settings["user"] ?? Self.systemUser(environment)
        self.init(host: settings["host"] ?? Self.defaultSocketDirectory, user: user)
        if host.contains(",") {
            throw Self.invalid("several hosts are not supported; give one")
        }
        if let port = settings["port"] {
            guard let number = Int(port), (1...65535).contains(number) else {
                throw Self.invalid("the port is not a number from 1 to 65535")
            }
            self.port = number
        }
        database = settings["dbname"] ?? user
        password = settings["password"].map(PostgreSQLPassword.init)
        passwordFile =
            settings["passfile"]
            ?? Self.homeDirectory(environment).map {
                ($0.hasSuffix("/") ? $0 : $0 + "/") + ".pgpass"
            }
        if let mode = settings["sslmode"] {
            guard let sslMode = SSLMode(rawValue: mode) else {
                throw Self.invalid(
                    "sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            self.sslMode = sslMode
        }
        if sslMode.requiresTLS {
            throw LogbookError.postgreSQL(.tlsUnsupported(sslmode: sslMode.rawValue))
        }
        applicationName = settings["application_name"]
        options = settings["options"]
        if let timeout = settings["connect_timeout"] {
            guard let seconds = Int(timeout) else {
                throw Self.invalid("connect_timeout is not a whole number of seconds")
            }
            // libpq: zero or less waits forever; one second is taken as two.
            connectTimeout = seconds <= 0 ? nil : .seconds(max(seconds, 2))
        }
        if let list = settings["require_auth"] {
            allowedAuthentication = try Self.parseRequireAuth(list)
        }
        if let encoding = settings["client_encoding"],
            !["utf8", "utf-8", "unicode", "auto"].contains(encoding.lowercased())
        {
            throw Self.invalid("client_encoding must be UTF8: the client reads text as UTF-8")
        }
        for (key, value) in [("host", host), ("user", user), ("dbname", database)]
        where value.isEmpty || value.contains("\0") {
            throw Self.invalid("\(key) is empty or holds a NUL character")
        }
    }

    /// The URL's settings under libpq's parameter names, percent-decoded.
    private static func parseURL(_ url: String) throws -> [String: String] {
        let lowered = url.lowercased()
        guard let scheme = ["postgresql://", "postgres://"].first(where: lowered.hasPrefix) else {
            throw invalid("the URL must start with postgresql:// or postgres://")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        var settings: [String: String] = [:]
        // As libpq: user information runs to an `@` before the first `/`.
        if let at = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[at] == "@" {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                settings["user"] = try decode(userInfo[..<colon], "user name")
                settings["password"] = try decode(
                    userInfo[userInfo.index(after: colon)...], "password")
            } else {
                settings["user"] = try decode(userInfo, "user name")
            }
        }
        let hostEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        try parseHostAndPort(rest[..<hostEnd], into: &settings)
        rest = rest[hostEnd...]
        if rest.first == "/" {
            let pathEnd = rest.firstIndex(of: "?") ?? rest.endIndex
            let name = try decode(rest.dropFirst()[..<pathEnd], "database name")
            if !name.isEmpty { settings["dbname"] = name }
            rest = rest[pathEnd...]
        }
        if rest.first == "?" {
            for pair in rest.dropFirst().split(separator: "&") {
                guard let equals = pair.firstIndex(of: "=") else {
                    throw invalid("a URL parameter has no value (expected key=value)")
                }
                let key = try decode(pair[..<equals], "parameter name")
                guard let name = knownParameters[key] else {
                    throw invalid("the URL parameter \"\(key)\" is not supported")
                }
                settings[name] = try decode(pair[pair.index(after: equals)...], "parameter \(key)")
            }
        }
        return settings.filter { !$0.value.isEmpty }
    }

    /// `host`, `[v6]`, `host:port`, `:port`, or nothing.
    private static func parseHostAndPort(_ text: Substring, into settings: inout [String: String])
        throws
    {
        var portText: Substring?
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else {
                throw invalid("an IPv6 address in the URL lacks its closing bracket")
            }
            settings["host"] = String(text[text.index(after: text.startIndex)..<close])
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else {
                    throw invalid("unexpected text after the IPv6 address")
                }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            settings["host"] = try decode(text[..<colon], "host")
            portText = text[text.index(after: colon)...]
        } else {
            settings["host"] = try decode(text, "host")
        }
        if let portText { settings["port"] = try decode(portText, "port") }
    }

    /// URL parameter names and the settings they set.
    private static let knownParameters: [String: String] = [
        "host": "host", "port": "port", "user": "user", "password": "password",
        "dbname": "dbname", "sslmode": "sslmode", "application_name": "application_name",
        "fallback_application_name": "fallback_application_name",
        "connect_timeout": "connect_timeout", "passfile": "passfile",
        "require_auth": "require_auth", "options": "options", "client_encoding": "client_encoding",
    ]

    /// Settings and the environment variables that supply them when the URL does not.
    private static let environmentVariables: [(String, String)] = [
        ("host", "PGHOST"), ("port", "PGPORT"), ("user", "PGUSER"), ("password", "PGPASSWORD"),
        ("dbname", "PGDATABASE"), ("sslmode", "PGSSLMODE"), ("application_name", "PGAPPNAME"),
        ("passfile", "PGPASSFILE"), ("connect_timeout", "PGCONNECT_TIMEOUT"),
        ("require_auth", "PGREQUIREAUTH"), ("options", "PGOPTIONS"),
    ]

    /// libpq's `require_auth`: methods separated by commas, or all of them negated with `!`.
    private static func parseRequireAuth(_ list: String) throws -> Set<AuthenticationMethod> {
        let items = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let negated = items.allSatisfy { $0.hasPrefix("!") }
        guard negated || !items.contains(where: { $0.hasPrefix("!") }) else {
            throw invalid("require_auth cannot mix methods with negated (!) methods")
        }
        var methods = Set<AuthenticationMethod>()
        for item in items {
            guard
                let method = AuthenticationMethod(
                    rawValue: negated ? String(item.dropFirst()) : item)
            else {
                throw invalid(
                    "require_auth takes \(AuthenticationMethod.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            methods.insert(method)
        }
        return negated ? Set(AuthenticationMethod.allCases).subtracting(methods) : methods
    }

    /// `text` percent-decoded; `what` names the part in the error (never its value).
    private static func decode(_ text: Substring, _ what: String) throws -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16),
                value != 0
            else { throw invalid("the URL's \(what) has an invalid percent escape") }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw invalid("the URL's \(what) is not UTF-8 once percent-decoded")
        }
        return string
    }

    /// The operating system's name for the effective user, as libpq's default user.
    private static func systemUser(_ environment: [String: String]) throws -> String {
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name {
            return String(cString: name)
        }
        if let user = environment["USER"], !user.isEmpty { return user }
        throw invalid("no user given (URL, PGUSER) and the system user has no name")
    }

    /// `HOME`, else the user database's home directory.
    private static func homeDirectory(_ environment: [String: String]) -> String? {
        if let home = environment["HOME"], !home.isEmpty { return home }
        guard let entry = getpwuid(geteuid()), let dir = entry.pointee.pw_dir else { return nil }
        return String(cString: dir)
    }

    static func invalid(_ reason: String) -> LogbookError {
        .postgreSQL(.configuration(reason: reason))
    }
}
