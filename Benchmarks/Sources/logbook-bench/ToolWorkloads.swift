import Foundation

/// The tools group (issue 19): the `logbook` and `employees` executables against the `sqlite3`
/// command line tool on the same Employees, each run as a child process and timed wall to wall
/// (with its peak RSS). The Logbook store is made by `logbook import` of JSON Lines, the SQLite
/// database by `.import --csv` of the same rows into a table with the same columns and an
/// index on designation (the schema's indexed attribute); those two runs are the import pair.
/// `tools-rss-floor` is the peak RSS of each program doing nothing (`logbook --help`, `sqlite3`
/// on an empty in-memory database): where every other row's peak RSS starts.
/// Outputs go to `/dev/null`. With `--quick` the pairs also run once more with their outputs
/// kept, and both must list the same rows (`employees` as `--json`). Then the `employees`
/// screen on a pseudo-terminal (``ToolScreen``: first frame, one Page Down; Logbook only).
/// Last, `logbook compact` against `VACUUM`.
enum ToolWorkloads {
    static var all: [Workload] {
        [
            Workload(
                name: "tools", group: "tools",
                summary: "logbook and employees against sqlite3, as child processes"
            ) { context in try run(context) }
        ]
    }

    /// One timed pair: what each side runs, and how the check reads each side's output as rows.
    private struct Pair {
        var workload: String
        var logbook: (program: String, arguments: [String])
        var sqlite: [String]
        /// The arguments whose output the check compares (`nil`: the timed ones).
        var checkedLogbook: [String]? = nil
        var rows: (logbook: (String) -> [String], sqlite: (String) -> [String])?
    }

    static func run(_ context: BenchContext) throws {
        let n = context.sizes.employees
        let paths = try ToolPaths.locate(quick: context.options.quick)
        context.reporter.note(
            "tools: \(n) Employees; each command a child process (wall time, peak RSS), output "
                + "to /dev/null; sqlite3 \(SQLiteSettings.version) CLI on a table with an index on "
                + "designation; logbook and employees from \(paths.logbook.dropLast(8))")
        try ScratchDirectory.with("tools") { directory in
            let jsonl = directory + "/rows.jsonl"
            let csv = directory + "/rows.csv"
            let rows = EmployeeData.generate(count: n)
            try writeRows(rows, jsonl: jsonl, csv: csv)
            let store = directory + "/store"
            let database = directory + "/store.db"
            let importers = (
                try ToolRun.run(paths.logbook, ["import", store, jsonl]),
                try ToolRun.run(
                    paths.sqlite3,
                    [
                        database,
                        "CREATE TABLE Employee (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                            + "designation TEXT NOT NULL, salary INTEGER NOT NULL); "
                            + "CREATE INDEX Employee_designation ON Employee (designation);",
                        ".import --csv --skip 1 \(csv) Employee",
                    ])
            )
            report("tools-import", importers.0, importers.1, rows: n, context)
            // What every row's peak RSS starts from: the process with its runtime and libraries
            // loaded, before any store is opened.
            let floors = (
                try ToolRun.run(paths.logbook, ["--help"]),
                try ToolRun.run(paths.sqlite3, [":memory:", "SELECT 1"])
            )
            context.reporter.size(
                "tools-rss-floor", logbook: floors.0.peakBytes, sqlite: floors.1.peakBytes,
                note: "peak RSS of `logbook --help` (the Swift runtime and Foundation loaded, no "
                    + "store); sqlite3 :memory: 'SELECT 1'")
            // The app opens the store once before it is timed: it may migrate the schema to its
            // model's (defaults, new entities), a write the timed runs should not include.
            _ = try ToolRun.run(
                paths.employees, ["--store", store, "list", "--where", "salary < 0"])
            for pair in pairs(store: store, database: database, paths: paths) {
                let ours = try ToolRun.run(pair.logbook.program, pair.logbook.arguments)
                let theirs = try ToolRun.run(paths.sqlite3, pair.sqlite)
                report(pair.workload, ours, theirs, rows: n, context)
                if context.options.quick, let rows = pair.rows {
                    try check(pair, rows, paths, directory, context)
                }
            }
            let stats = try ToolRun.run(paths.logbook, ["stats", store])
            context.reporter.timing(
                "tools-stats", engine: "logbook", operations: 1, bytes: 0, seconds: stats.seconds,
                note: "peak RSS \(stats.peakBytes >> 20) MB")
            if context.options.quick {
                let out = directory + "/stats.json"
                _ = try ToolRun.run(
                    paths.logbook, ["stats", store, "--format", "json"], stdout: out)
                let text = try String(contentsOfFile: out, encoding: .utf8)
                try context.expect(
                    "tools-stats", "logbook", "Employee count", text.contains("\"objects\":\(n)}"),
                    equals: true)
            }
            if n > 11 {
                let screen = try ToolScreen.run(
                    paths.employees, store: store, rows: rows, home: directory)
                context.reporter.timing(
                    "tools-screen-first-frame", engine: "logbook", operations: 1, bytes: 0,
                    seconds: screen.firstFrame,
                    note: "peak RSS \(screen.peakBytes >> 20) MB of the session")
                context.reporter.timing(
                    "tools-screen-page-down", engine: "logbook", operations: 1, bytes: 0,
                    seconds: screen.pageDown)
            }
            // Last, as it rewrites both: compaction against VACUUM (both rewrite every live row).
            let compacted = (
                try ToolRun.run(paths.logbook, ["compact", store]),
                try ToolRun.run(paths.sqlite3, [database, "VACUUM"])
            )
            report("tools-compact", compacted.0, compacted.1, rows: n, context)
            if context.options.quick {
                let verified = try ToolRun.run(paths.logbook, ["verify", store])
                try context.expect(
                    "tools-compact", "logbook", "verify after compact", verified.status == 0,
                    equals: true)
            }
        }
    }

    /// The pairs of issue 19's table.
    private static func pairs(store: String, database: String, paths: ToolPaths) -> [Pair] {
        let sqliteRows = { (text: String) in
            text.split(separator: "\n").map(String.init)
        }
        return [
            Pair(
                workload: "tools-list", logbook: (paths.employees, ["--store", store, "list"]),
                sqlite: [database, "SELECT * FROM Employee"],
                checkedLogbook: ["--store", store, "list", "--json"],
                rows: (appRows, sqliteRows)),
            Pair(
                workload: "tools-dump-live-jsonl",
                logbook: (paths.logbook, ["dump", store, "--live", "--format", "jsonl"]),
                sqlite: [database, ".dump"], rows: (dumpRows, sqliteInsertRows)),
            Pair(
                workload: "tools-export-sql",
                logbook: (paths.logbook, ["export", store, "--format", "sql"]),
                sqlite: [database, ".dump"], rows: (exportInsertRows, sqliteInsertRows)),
            Pair(
                workload: "tools-verify", logbook: (paths.logbook, ["verify", store]),
                sqlite: [database, "PRAGMA integrity_check"],
                rows: (
                    { $0.contains("verify: OK") ? ["ok"] : [$0] },
                    { $0.split(separator: "\n").map(String.init) }
                )),
            Pair(
                workload: "tools-list-where",
                logbook: (
                    paths.employees,
                    ["--store", store, "list", "--where", "salary > 199900", "--sort", "salary"]
                ),
                sqlite: [database, "SELECT * FROM Employee WHERE salary > 199900 ORDER BY salary"],
                checkedLogbook: [
                    "--store", store, "list", "--where", "salary > 199900", "--sort", "salary",
                    "--json",
                ],
                rows: (appRows, sqliteRows)),
        ]
    }

    private static func report(
        _ workload: String, _ ours: ToolRun, _ theirs: ToolRun, rows: Int, _ context: BenchContext
    ) {
        context.reporter.timing(
            workload, engine: "logbook", operations: rows, bytes: 0, seconds: ours.seconds)
        context.reporter.timing(
            workload, engine: "sqlite", operations: rows, bytes: 0, seconds: theirs.seconds)
        context.reporter.size(
            workload + "-rss", logbook: ours.peakBytes, sqlite: theirs.peakBytes,
            note: "peak RSS of the child")
    }

    /// Runs both sides of `pair` again with their outputs kept; both must list the same rows.
    private static func check(
        _ pair: Pair, _ rows: (logbook: (String) -> [String], sqlite: (String) -> [String]),
        _ paths: ToolPaths, _ directory: String, _ context: BenchContext
    ) throws {
        let ours = directory + "/\(pair.workload).logbook"
        let theirs = directory + "/\(pair.workload).sqlite"
        _ = try ToolRun.run(
            pair.logbook.program, pair.checkedLogbook ?? pair.logbook.arguments, stdout: ours)
        _ = try ToolRun.run(paths.sqlite3, pair.sqlite, stdout: theirs)
        let a = rows.logbook(try String(contentsOfFile: ours, encoding: .utf8))
        let b = rows.sqlite(try String(contentsOfFile: theirs, encoding: .utf8))
        // The same rows; in the same order only where the order is defined (salary ties and
        // list's order are not).
        let (x, y) = (a.sorted(), b.sorted())
        if x != y {
            let i =
                zip(x, y).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(x.count, y.count)
            try context.agree(
                pair.workload, "row \(i) of \(x.count) and \(y.count) sorted rows",
                logbook: i < x.count ? x[i] : "none", sqlite: i < y.count ? y[i] : "none")
        }
        if pair.workload == "tools-list-where" {
            let salaries = a.compactMap { $0.split(separator: "|").last.flatMap { Int($0) } }
            try context.expect(
                pair.workload, "logbook", "sorted by salary", salaries == salaries.sorted(),
                equals: true)
        }
    }

    /// `id|name|designation|salary` rows of `employees list --json` (ids `Employee/N`), in its
    /// order.
    private static func appRows(_ text: String) -> [String] {
        let objects = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]]
        return (objects ?? []).map { row in
            let id = (row["id"] as? String)?.split(separator: "/").last.map(String.init) ?? "?"
            return "\(id)|\(row["name"] ?? "")|\(row["designation"] ?? "")|\(row["salary"] ?? "")"
        }
    }

    /// The Employee rows of `logbook dump --format jsonl`.
    private static func dumpRows(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line -> String? in
            guard
                let record = try? JSONSerialization.jsonObject(with: Data(line.utf8))
                    as? [String: Any],
                record["entity"] as? String == "Employee", let id = record["id"] as? Int,
                let object = record["object"] as? [String: Any]
            else { return nil }
            return "\(id)|\(object["name"] ?? "")|\(object["designation"] ?? "")|"
                + "\(object["salary"] ?? "")"
        }
    }

    /// `INSERT INTO "Employee" (…) VALUES (1, 'Ann', 'Engineer', 5);` → `1|Ann|Engineer|5`.
    private static func exportInsertRows(_ text: String) -> [String] {
        insertRows(text, prefix: "INSERT INTO \"Employee\"")
    }

    /// `INSERT INTO Employee VALUES(1,'Ann','Engineer',5);` → `1|Ann|Engineer|5`.
    private static func sqliteInsertRows(_ text: String) -> [String] {
        insertRows(text, prefix: "INSERT INTO Employee")
    }

    /// With a column list (export's), the values of the four columns SQLite's table has, in its
    /// order: a store the app migrated also has the `company` key, always NULL here.
    private static func insertRows(_ text: String, prefix: String) -> [String] {
        let unquote = { (part: Substring) in
            part.trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "'\""))
        }
        return text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.compactMap { line in
            guard let open = line.range(of: "VALUES", options: .backwards) else { return nil }
            let values = line[open.upperBound...].drop { $0 == " " || $0 == "(" }
                .dropLast(2)  // ");"
                .split(separator: ",").map(unquote)
            let head = line[line.index(line.startIndex, offsetBy: prefix.count)..<open.lowerBound]
            guard let from = head.firstIndex(of: "("), let to = head.lastIndex(of: ")") else {
                return values.joined(separator: "|")
            }
            let columns = head[head.index(after: from)..<to].split(separator: ",").map(unquote)
            return ["id", "name", "designation", "salary"].map { name in
                columns.firstIndex(of: name).map { $0 < values.count ? values[$0] : "?" } ?? "?"
            }.joined(separator: "|")
        }
    }

    /// Writes `rows` as the JSON Lines `logbook import` reads (with the schema of the employees
    /// app's model) and as CSV with a header for `sqlite3 .import`.
    private static func writeRows(_ rows: [EmployeeRow], jsonl: String, csv: String) throws {
        let schema =
            #"{"_schema":{"version":1,"entities":[{"name":"Employee","attributes":["#
            + #"{"name":"name","type":"String","optional":false,"indexed":false,"unique":false,"default":""},"#
            + #"{"name":"designation","type":"String","optional":false,"indexed":true,"unique":false,"default":""},"#
            + #"{"name":"salary","type":"Int64","optional":false,"indexed":false,"unique":false,"default":0}]}]}}"#
        var lines = schema + "\n"
        var table = "id,name,designation,salary\n"
        lines.reserveCapacity(rows.count * 90)
        table.reserveCapacity(rows.count * 40)
        for row in rows {
            // Names and designations are letters only: no escaping or quoting needed.
            lines +=
                #"{"_entity":"Employee","name":""# + row.name + #"","designation":""#
                + row.designation + #"","salary":"# + String(row.salary) + "}\n"
            table += "\(row.id),\(row.name),\(row.designation),\(row.salary)\n"
        }
        try lines.write(toFile: jsonl, atomically: false, encoding: .utf8)
        try table.write(toFile: csv, atomically: false, encoding: .utf8)
    }
}
