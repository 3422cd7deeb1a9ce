import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM as a request to stop: commands that run until stopped (`changes --follow`)
/// check ``isRequested`` between steps, finish what they were writing (a whole save, then the
/// resume token) and exit with status 0, instead of dying mid-line.
///
/// Thread-safe: the flag is an atomic the signal handler sets.
enum StopSignal {
    private static let requested = Atomic<Bool>(false)

    /// Replaces the default action of SIGINT and SIGTERM (ending the process) with setting the
    /// flag. Call once, before the loop that checks it.
    static func install() {
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in StopSignal.requested.store(true, ordering: .relaxed) }
        }
    }

    /// Whether SIGINT or SIGTERM came since ``install()``.
    static var isRequested: Bool { requested.load(ordering: .relaxed) }
}
