import Foundation

/// Where the employees store lives when the command line does not say.
///
/// Order: `--store PATH`, then `$LOGBOOK_EMPLOYEES_STORE`, then the per-user data directory —
/// `$XDG_DATA_HOME/logbook/Employees.logbook` (or `~/.local/share/logbook/…`) on Linux,
/// `~/Library/Application Support/logbook/…` on macOS.
enum StoreLocation {
    /// The environment variable that overrides the default path.
    static let environmentVariable = "LOGBOOK_EMPLOYEES_STORE"
    /// The store's name inside the data directory.
    static let storeName = "Employees.logbook"

    /// The store path for `explicitPath` (from `--store`) and `environment`.
    static func resolve(explicitPath: String?, environment: [String: String]) -> String {
        if let explicitPath, !explicitPath.isEmpty { return explicitPath }
        if let path = environment[environmentVariable], !path.isEmpty { return path }
        return defaultDirectory(environment: environment) + "/" + storeName
    }

    /// The per-user directory that holds the default store.
    static func defaultDirectory(environment: [String: String]) -> String {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        #if os(macOS)
            return home + "/Library/Application Support/logbook"
        #else
            if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
                return data + "/logbook"
            }
            return home + "/.local/share/logbook"
        #endif
    }

    /// Creates the parent directory of `path` (owner-only, like the store's files) if missing.
    /// - Throws: ``EmployeesError/store(_:)`` naming the directory.
    static func prepareParent(of path: String) throws(EmployeesError) {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(
                atPath: parent, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            let reason = systemReason(error)
            throw .store(
                "cannot create the directory \(parent) for the store (\(reason)); "
                    + "check the path, or pass another with --store")
        }
    }

    /// `strerror`'s words for the POSIX error under a Foundation file error, else its description.
    private static func systemReason(_ error: any Error) -> String {
        let error = error as NSError
        let underlying = (error.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        for candidate in [error, underlying] {
            if let candidate, candidate.domain == NSPOSIXErrorDomain {
                return String(cString: strerror(Int32(candidate.code)))
            }
        }
        return error.localizedDescription
    }
}
