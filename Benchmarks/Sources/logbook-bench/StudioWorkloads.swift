import Foundation
import Logbook

#if canImport(Glibc)
    import Glibc
#endif

/// The studio group (issue 35): `logbook studio` serving a store of N Employees (designation
/// indexed), as a child process, and asked over HTTP for the Objects view. Each figure is the
/// server's own time for the request (its `Server-Timing` header), so the client and the
/// loopback are not counted:
/// - `studio-first-page`: the first page of Employees in key order, the first request after
///   start (it finds every key: nothing is cached yet);
/// - `studio-next-page`: the median of 20 further pages;
/// - `studio-indexed-filter`: the first page of `designation == 'Engineer'`, with its count and
///   plan (the index answers);
/// - `studio-peak-rss`: the server's peak resident memory (`VmHWM`) after those;
/// - `studio-first-page-gaps`, `studio-peak-rss-gaps`: the first page again, on a new server,
///   once some employees were deleted (the keys no longer run 1…N, so it reads them all).
enum StudioWorkloads {
    static var all: [Workload] {
        [
            Workload(
                name: "studio", group: "studio",
                summary: "logbook studio: first Objects page, next page, indexed filter, peak RSS"
            ) { context in try run(context) }
        ]
    }

    static let targets = [
        Target(
            name: "studio: first Objects page ≤ 200 ms", workload: "studio-first-page",
            rule: .millisecondsAtMost(200)),
        Target(
            name: "studio: next page ≤ 20 ms", workload: "studio-next-page",
            rule: .millisecondsAtMost(20)),
        Target(
            name: "studio: indexed filter ≤ 50 ms", workload: "studio-indexed-filter",
            rule: .millisecondsAtMost(50)),
        Target(
            name: "studio: peak RSS ≤ 64 MB", workload: "studio-peak-rss",
            rule: .megabytesAtMost(64)),
    ]

    static func run(_ context: BenchContext) throws {
        let n = context.sizes.employees
        let paths = try ToolPaths.locate(quick: context.options.quick)
        context.reporter.note(
            "studio: \(n) Employees (designation indexed), logbook studio from "
                + "\(paths.logbook.dropLast(8)) as a child process; server time of each request "
                + "(Server-Timing), peak RSS from /proc/PID/status")
        try ScratchDirectory.with("studio") { directory in
            let store = directory + "/employees.logbook"
            try makeStore(at: store, rows: EmployeeData.generate(count: n))
            try measure(context, n: n, logbook: paths.logbook, store: store, directory: directory)
            // Once objects were deleted, the keys are no longer 1…N: the first page then finds
            // them all (the keys in the log, 8 bytes each).
            let container = try ModelContainer(
                for: [IndexedEmployee.self], at: URL(fileURLWithPath: store))
            let deleted = try ModelContext(container).fetchCount(
                FetchDescriptor<IndexedEmployee>(predicate: #Predicate { $0.salary < 31_000 }))
            try ModelContext(container).delete(
                model: IndexedEmployee.self, where: #Predicate { $0.salary < 31_000 })
            try container.close()
            let server = try StudioChild(logbook: paths.logbook, store: store, directory: directory)
            defer { server.stop() }
            let first = try server.get("/entity/Employee")
            try context.expect(
                "studio-first-page-gaps", "logbook", "the count shown",
                first.body.contains("<strong id=\"match-count\">\(n - deleted)</strong>"),
                equals: true)
            context.reporter.timing(
                "studio-first-page-gaps", engine: "logbook", operations: 1, bytes: 0,
                seconds: first.serverSeconds, note: "after deleting \(deleted): the keys walked")
            context.reporter.size(
                "studio-peak-rss-gaps", logbook: server.peakBytes, sqlite: nil,
                note: "VmHWM after that first page")
        }
    }

    /// The first page, 20 more, and an indexed filter, from a studio started on `store`.
    private static func measure(
        _ context: BenchContext, n: Int, logbook: String, store: String, directory: String
    ) throws {
        let server = try StudioChild(logbook: logbook, store: store, directory: directory)
        defer { server.stop() }
        let first = try server.get("/entity/Employee")
        try context.expect(
            "studio-first-page", "logbook", "the count shown",
            first.body.contains("<strong id=\"match-count\">\(n)</strong>"), equals: true)
        context.reporter.timing(
            "studio-first-page", engine: "logbook", operations: 1, bytes: first.body.utf8.count,
            seconds: first.serverSeconds, note: "wall \(milliseconds(first.wallSeconds)) ms")
        var pages: [Double] = []
        for page in 1...20 {
            let offset = min(page * 50 * max(1, n / 1000), max(0, n - 50))
            let response = try server.get("/entity/Employee?offset=\(offset)")
            try context.expect(
                "studio-next-page", "logbook", "status", response.status, equals: 200)
            pages.append(response.serverSeconds)
        }
        pages.sort()
        context.reporter.timing(
            "studio-next-page", engine: "logbook", operations: 1, bytes: 0,
            seconds: pages[pages.count / 2], note: "median of 20 pages across the store")
        let engineers = "designation%20%3D%3D%20%27\(EmployeeData.fetchedDesignation)%27"
        let filtered = try server.get("/entity/Employee?where=\(engineers)")
        try context.expect(
            "studio-indexed-filter", "logbook", "plan uses the index",
            filtered.body.contains("index Employee(designation)"), equals: true)
        context.reporter.timing(
            "studio-indexed-filter", engine: "logbook", operations: 1, bytes: 0,
            seconds: filtered.serverSeconds,
            note: "wall \(milliseconds(filtered.wallSeconds)) ms")
        context.reporter.size(
            "studio-peak-rss", logbook: server.peakBytes, sqlite: nil,
            note: "VmHWM of logbook studio after those requests")
    }

    /// A store of `rows` with designation indexed, written in saves of 100,000 and closed (so
    /// that it has its key directory and index sidecar, as an app leaves it).
    private static func makeStore(at path: String, rows: [EmployeeRow]) throws {
        let container = try ModelContainer(
            for: [IndexedEmployee.self], at: URL(fileURLWithPath: path))
        var start = 0
        while start < rows.count {
            let context = ModelContext(container)
            for row in rows[start..<min(start + 100_000, rows.count)] {
                let employee = IndexedEmployee()
                employee.name = row.name
                employee.designation = row.designation
                employee.salary = row.salary
                context.insert(employee)
            }
            try context.save()
            start += 100_000
        }
        try container.close()
    }

    private static func milliseconds(_ seconds: Double) -> String {
        String(format: "%.1f", seconds * 1000)
    }
}

/// `logbook studio STORE` as a child process, and requests to it.
private final class StudioChild {
    let pid: pid_t
    let port: UInt16
    let token: String

    init(logbook: String, store: String, directory: String) throws {
        let output = directory + "/studio.out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let command: [String] = [logbook, "studio", store]
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid = pid_t()
        guard posix_spawn(&pid, logbook, &actions, nil, argv, environ) == 0 else {
            throw BenchError.setup("cannot start \(logbook) studio")
        }
        self.pid = pid
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("http://") }),
                let port = line.split(separator: ":").last?.split(separator: "/").first
                    .flatMap({ UInt16($0) }),
                let token = line.components(separatedBy: "token=").last
            {
                self.port = port
                self.token = token
                return
            }
            guard ContinuousClock.now < deadline else {
                kill(pid, SIGKILL)
                throw BenchError.setup("logbook studio printed no URL within 60 s")
            }
            usleep(20_000)
        }
    }

    /// The server's peak resident memory so far.
    var peakBytes: Int64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int64($0) })
        else { return nil }
        return kilobytes * 1024
    }

    struct Response {
        var status: Int
        var body: String
        var serverSeconds: Double
        var wallSeconds: Double
    }

    /// `GET target`, with the token, on a new connection.
    func get(_ target: String) throws -> Response {
        let start = ContinuousClock.now
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError.setup("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw BenchError.setup("cannot connect to the studio") }
        let separator = target.contains("?") ? "&" : "?"
        let request =
            "GET \(target)\(separator)token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Connection: close\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        let wall = ContinuousClock.now - start
        let text = String(decoding: bytes, as: UTF8.self)
        let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let timing = text.components(separatedBy: "Server-Timing: app;dur=").dropFirst().first?
            .prefix { $0.isNumber || $0 == "." }
        guard let milliseconds = timing.flatMap({ Double($0) }) else {
            throw BenchError.setup(
                "no Server-Timing in the answer to \(target): \(text.prefix(200))")
        }
        return Response(
            status: status, body: text, serverSeconds: milliseconds / 1000,
            wallSeconds: Double(wall.components.seconds)
                + Double(wall.components.attoseconds) * 1e-18)
    }

    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}
