import Foundation

/// One program run as a child process for the tools group, with what the group compares: wall
/// time and the child's peak resident set, standard output and error to files (or
/// `/dev/null`), standard input from `/dev/null`.
///
/// The peak RSS comes from GNU `time` (`/usr/bin/time -f %M`), which starts the program from a
/// small process of its own: a child started from this process directly would report at least
/// this process's RSS, which Linux counts into a child's `ru_maxrss` when the child execs.
struct ToolRun {
    var seconds: Double
    var peakBytes: Int64
    var status: Int32

    /// Runs `executable arguments…`.
    /// - Throws: ``BenchError/setup(_:)`` if it cannot start, or exits with another status than
    ///   0 (`allowFailure` lets the caller look at it).
    static func run(
        _ executable: String, _ arguments: [String], stdout: String = "/dev/null",
        stderr: String = "/dev/null", allowFailure: Bool = false
    ) throws -> ToolRun {
        let measured = FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        let peakFile =
            stdout == "/dev/null" ? "/tmp/logbook-bench-rss-\(getpid())" : stdout + ".rss"
        let command =
            measured
            ? ["/usr/bin/time", "-f", "%M", "-o", peakFile, executable] + arguments
            : [executable] + arguments
        defer { unlink(peakFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid = pid_t()
        let start = ContinuousClock.now
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchError.setup(
                "cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw BenchError.setup("wait4 for \(executable) failed") }
        }
        let elapsed = ContinuousClock.now - start
        let exited = status & 0x7F == 0
        let code = exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        // GNU time writes "Command exited with non-zero status N" before the figure.
        let kib = (try? String(contentsOfFile: peakFile, encoding: .utf8))?
            .split(separator: "\n").last.flatMap { Int64($0) }
        let run = ToolRun(
            seconds: Double(elapsed.components.seconds)
                + Double(elapsed.components.attoseconds) * 1e-18,
            peakBytes: (kib ?? 0) * 1024, status: code)
        if code != 0 && !allowFailure {
            let message = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
            throw BenchError.setup(
                "\(([executable] + arguments).joined(separator: " ")) exited \(code): "
                    + message.prefix(400))
        }
        return run
    }
}

/// Where the tools group finds `logbook`, `employees` and `sqlite3`.
struct ToolPaths {
    var logbook: String
    var employees: String
    var sqlite3: String

    /// `$LOGBOOK_TOOLS_DIR` if set; else built in the root package first, so that the run never
    /// measures stale binaries: as the README says to build them for use, with the Swift
    /// runtime and Foundation linked in (`--static-swift-stdlib`, in `.build/tools`, beside the
    /// ordinary release build), or with `--quick` the debug build. `sqlite3` is `$SQLITE3` or
    /// `/usr/bin/sqlite3`.
    /// - Throws: ``BenchError/setup(_:)`` if a program is missing or does not build.
    static func locate(quick: Bool) throws -> ToolPaths {
        let environment = ProcessInfo.processInfo.environment
        let sqlite3 = environment["SQLITE3"] ?? "/usr/bin/sqlite3"
        guard FileManager.default.isExecutableFile(atPath: sqlite3) else {
            throw BenchError.setup("no sqlite3 at \(sqlite3) (set SQLITE3)")
        }
        let directory: String
        if let given = environment["LOGBOOK_TOOLS_DIR"] {
            directory = given
        } else {
            // …/Benchmarks/.build/<triple>/<configuration>/logbook-bench → the repository.
            let executable = try FileManager.default.destinationOfSymbolicLink(
                atPath: "/proc/self/exe")
            var root = URL(fileURLWithPath: executable)
            for _ in 0..<5 { root.deleteLastPathComponent() }
            let scratch = root.path + (quick ? "/.build" : "/.build/tools")
            let flags = quick ? ["-c", "debug"] : ["-c", "release", "--static-swift-stdlib"]
            for product in ["logbook", "employees"] {
                let build = try ToolRun.run(
                    "/usr/bin/env",
                    ["swift", "build"] + flags + [
                        "--product", product, "--package-path", root.path, "--scratch-path",
                        scratch,
                    ],
                    stderr: "/dev/null", allowFailure: true)
                guard build.status == 0 else {
                    throw BenchError.setup(
                        "swift build \(flags.joined(separator: " ")) --product \(product) in "
                            + "\(root.path) failed")
                }
            }
            directory = scratch + (quick ? "/debug" : "/release")
        }
        let paths = ToolPaths(
            logbook: directory + "/logbook", employees: directory + "/employees", sqlite3: sqlite3)
        for path in [paths.logbook, paths.employees]
        where !FileManager.default.isExecutableFile(atPath: path) {
            throw BenchError.setup("no executable at \(path) (set LOGBOOK_TOOLS_DIR)")
        }
        return paths
    }
}
