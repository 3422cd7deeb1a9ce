import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// libpq's password file (`~/.pgpass`, or `PGPASSFILE`): lines of
/// `hostname:port:database:username:password`, where `*` in any of the first four fields
/// matches anything, `\` escapes `:` and `\`, and a line starting with `#` is a comment. The
/// first matching line wins.
///
/// As libpq does, the file is ignored unless it is a plain file that neither its group nor
/// others can read, write or run (`chmod 0600`).
enum PasswordFile {
    /// The outcome of a look-up.
    enum Lookup: Equatable {
        case found(String)
        /// No file, or no line for the connection.
        case notFound
        /// The file exists but was not read; `reason` says why (it never holds file content).
        case ignored(reason: String)
    }

    /// The largest file read; past it the file is ignored (a password file is a few lines).
    static let maximumBytes = 1 << 20

    /// The password for `configuration` in the file at `path`.
    ///
    /// A Unix socket connection matches the host `localhost` when it uses the default socket
    /// directory, and the directory's path otherwise (libpq's rule).
    static func password(at path: String, for configuration: PostgreSQLConfiguration) -> Lookup {
        var status = stat()
        guard stat(path, &status) == 0 else { return .notFound }
        guard status.st_mode & S_IFMT == S_IFREG else {
            return .ignored(reason: "\(path) is not a plain file")
        }
        if status.st_mode & (S_IRWXG | S_IRWXO) != 0 {
            return .ignored(
                reason:
                    "\(path) was ignored because group or others can access it; make it private "
                    + "with chmod 600")
        }
        guard status.st_size <= maximumBytes, let data = FileManager.default.contents(atPath: path)
        else {
            return .ignored(reason: "\(path) cannot be read or is larger than 1 MiB")
        }
        let host =
            configuration.isUnixSocket
                && configuration.host == PostgreSQLConfiguration.defaultSocketDirectory
            ? "localhost" : configuration.host
        let wanted = [host, String(configuration.port), configuration.database, configuration.user]
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            if line.hasPrefix("#") { continue }
            let fields = Self.fields(line)
            guard fields.count >= 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0.0.isWildcard || $0.0.text == $0.1 }) {
                return .found(fields[4].text)
            }
        }
        return .notFound
    }

    /// The line's fields, unescaped, each with whether it is the wildcard: exactly an
    /// unescaped `*` (an escaped `\*` is a literal star, as in libpq).
    private static func fields(_ line: Substring) -> [(text: String, isWildcard: Bool)] {
        var fields: [(text: String, isWildcard: Bool)] = []
        var field = ""
        var hadEscape = false
        var escaped = false
        for c in line {
            if escaped {
                field.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
                hadEscape = true
            } else if c == ":" && fields.count < 4 {
                fields.append((field, field == "*" && !hadEscape))
                field = ""
                hadEscape = false
            } else if c == ":" {
                break  // The password ends at an unescaped colon.
            } else {
                field.append(c)
            }
        }
        fields.append((field, false))
        return fields
    }
}
