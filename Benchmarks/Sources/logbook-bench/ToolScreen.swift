import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The `employees` screen on a pseudo-terminal (issue 19: it opens on 1M employees in under a
/// second and pages without building every row): the time from starting the program to its
/// first frame (the count of employees and the key line drawn), then from a Page Down to the
/// frame with the 11th employee selected, and the peak RSS of the whole session (`q` ends it).
struct ToolScreen {
    var firstFrame: Double
    var pageDown: Double
    var peakBytes: Int64

    /// Runs the screen of `employees` on `store`, which holds `rows` (ids 1… in order), in a
    /// terminal of 60 × 14 (ten rows a page).
    /// - Throws: ``BenchError/setup(_:)`` if the terminal or the program cannot start, or a
    ///   frame does not come within 30 s.
    static func run(_ employees: String, store: String, rows: [EmployeeRow], home: String)
        throws -> ToolScreen
    {
        guard rows.count > 11 else { throw BenchError.setup("the screen row needs 12 employees") }
        let terminal = try Terminal()
        let peakFile = home + "/screen.rss"
        let command = [
            "/usr/bin/time", "-f", "%M", "-o", peakFile, employees, "--store", store,
        ]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 {
            posix_spawn_file_actions_adddup2(&actions, terminal.secondary, descriptor)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        let environment: [String] = ["HOME=\(home)", "TERM=xterm", "PATH=/usr/bin:/bin"]
        let env: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for arg in argv + env { free(arg) } }
        var pid = pid_t()
        let start = ContinuousClock.now
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, env)
        guard spawned == 0 else {
            throw BenchError.setup(
                "cannot start \(employees): \(String(cString: strerror(spawned)))")
        }
        var finished = false
        defer {
            if !finished {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
        }
        let count = "\(rows.count) employees"
        try terminal.read(until: { $0.contains(count) && $0.contains("q quit") })
        let firstFrame = seconds(ContinuousClock.now - start)
        terminal.clear()
        let paged = ContinuousClock.now
        terminal.type("\u{1B}[6~")  // Page Down: the 11th employee selected
        try terminal.read(until: { $0.contains("> \(rows[10].name)") })
        let pageDown = seconds(ContinuousClock.now - paged)
        terminal.type("q")
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 { terminal.drain(waitingMilliseconds: 20) }
        finished = true
        defer { unlink(peakFile) }
        let kib = (try? String(contentsOfFile: peakFile, encoding: .utf8))?
            .split(separator: "\n").last.flatMap { Int64($0) }
        guard status & 0x7F == 0 && (status >> 8) & 0xFF == 0 else {
            throw BenchError.setup("the screen exited with status \(status)")
        }
        return ToolScreen(firstFrame: firstFrame, pageDown: pageDown, peakBytes: (kib ?? 0) * 1024)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// A pseudo-terminal pair: the program gets the secondary side, the row types into and
    /// reads from the primary side.
    private final class Terminal {
        let primary: Int32
        let secondary: Int32
        private var output: [UInt8] = []

        init() throws {
            // posix_openpt and friends are not visible through Glibc; use the devpts ioctls
            // (TIOCSPTLCK, TIOCGPTN) that they wrap.
            primary = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            var unlock: Int32 = 0
            var number: UInt32 = 0
            guard primary >= 0, ioctl(primary, 0x4004_5431, &unlock) == 0,
                ioctl(primary, 0x8004_5430, &number) == 0
            else { throw BenchError.setup("cannot open a pseudo-terminal (errno \(errno))") }
            secondary = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
            guard secondary >= 0 else { throw BenchError.setup("cannot open /dev/pts/\(number)") }
            var size = winsize(ws_row: 14, ws_col: 60, ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(primary, UInt(TIOCSWINSZ), &size)
        }

        deinit {
            close(primary)
            close(secondary)
        }

        func type(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(primary, $0.baseAddress, $0.count) }
        }

        func clear() { output.removeAll() }

        /// Reads until `condition` holds on the text read since the last ``clear()``.
        func read(until condition: (String) -> Bool, timeout: Double = 30) throws {
            let deadline = ContinuousClock.now + .seconds(timeout)
            while ContinuousClock.now < deadline {
                if condition(String(decoding: output, as: UTF8.self)) { return }
                drain(waitingMilliseconds: 5)
            }
            throw BenchError.setup(
                "the screen did not draw the expected frame; last output: "
                    + String(decoding: output.suffix(300), as: UTF8.self))
        }

        func drain(waitingMilliseconds: Int32) {
            var descriptor = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
            var wait = waitingMilliseconds
            while poll(&descriptor, 1, wait) > 0 {
                var buffer = [UInt8](repeating: 0, count: 65536)
                let count = buffer.withUnsafeMutableBytes {
                    Glibc.read(primary, $0.baseAddress, $0.count)
                }
                guard count > 0 else { return }
                output += buffer[..<count]
                wait = 0
            }
        }
    }
}
