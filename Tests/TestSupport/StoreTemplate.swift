import Foundation
import LogStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A store built once per test process and copied for each test that starts from it, so that
/// tests that need the same large store do not each build it again. Each copy is the directory
/// the builder left (a store it closed), and is the test's to change; the template itself is
/// removed when the process exits.
///
/// Thread safety: any test may call ``copy(to:)`` at any time; the first call builds the store
/// while the others wait for it.
public final class StoreTemplate: Sendable {
    private let state: Locked<Result<String, any Error>?>
    private let label: String
    private let build: @Sendable (_ path: String) throws -> Void

    /// A template that `build` makes at the path it is given (which does not exist yet) on first
    /// use.
    public init(_ label: String, build: @escaping @Sendable (_ path: String) throws -> Void) {
        self.label = label
        self.build = build
        state = Locked(nil)
    }

    /// Copies the store, built on first use, to `path`, which must not exist. Rethrows the
    /// builder's error, on every call if it failed once.
    public func copy(to path: String) throws {
        let source = try state.withLock { built in
            if built == nil {
                let directory = TemporaryDirectory("template-\(label)")
                StoreTemplate.removeAtExit(directory.path)
                let store = directory.child("store")
                built = Result { try build(store) }.map { store }
            }
            return built!
        }.get()
        try FileManager.default.copyItem(atPath: source, toPath: path)
    }

    /// The templates' directories, removed by the `atexit` handler registered with the first.
    private static let directories = Locked<[String]>([])

    private static func removeAtExit(_ path: String) {
        let first = directories.withLock { paths in
            paths.append(path)
            return paths.count == 1
        }
        if first {
            atexit {
                for path in StoreTemplate.directories.withLock({ $0 }) {
                    try? FileManager.default.removeItem(atPath: path)
                }
            }
        }
    }
}
