/// The command line: `logbook-bench [workloads…] [--num N] [--json FILE] [--quick]`.
struct BenchOptions {
    /// Workload or group names; empty means all.
    var selection: [String] = []
    /// Keys (engine, YCSB records) and Employees (objects); `nil` means the default.
    var num: Int?
    var jsonPath: String?
    var markdownPath: String?
    var quick = false
    var list = false
    /// Times each selected workload runs; the report keeps the fastest of each.
    var repetitions = 1
    /// The peers of the engine and YCSB groups (labels of ``Peers``); all of them by default.
    var engines = Peers.labels
    /// Set by the hidden child subcommand (`__child …`), which the suite runs in a fresh process.
    var child: [String]?

    static let usage = """
        usage: logbook-bench [workload|group ...] [--num N] [--json FILE] [--markdown FILE]
                             [--repeat R] [--engines LIST] [--quick] [--list]
          workload|group  what to run (default: everything); --list shows the names
          --engines LIST  the peers of the engine and YCSB groups, comma-separated from
                          sqlite,lmdb,leveldb,rocksdb (default: all; none: Logbook alone);
                          the other groups always compare with SQLite
          --num N         keys / records / Employees per workload (default 1,000,000)
          --json FILE     also write every figure as JSON to FILE
          --markdown FILE also write a Markdown table of the figures to FILE (RESULTS.md)
          --repeat R      run everything R times; the report keeps each figure's fastest run
          --quick         every workload at a small size (CI: checks correctness, not timings)
        """

    init(arguments: [String]) throws {
        if arguments.first == "__child" {
            child = Array(arguments.dropFirst())
            return
        }
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--num":
                guard let text = rest.popFirst(), let value = Int(text.filter { $0 != "_" }),
                    value > 0
                else { throw BenchError.usage("--num needs a positive number") }
                num = value
            case "--json":
                guard let path = rest.popFirst() else {
                    throw BenchError.usage("--json needs a file")
                }
                jsonPath = path
            case "--markdown":
                guard let path = rest.popFirst() else {
                    throw BenchError.usage("--markdown needs a file")
                }
                markdownPath = path
            case "--repeat":
                guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
                    throw BenchError.usage("--repeat needs a positive number")
                }
                repetitions = value
            case "--engines":
                guard let list = rest.popFirst() else {
                    throw BenchError.usage("--engines needs a list of engines")
                }
                engines = try Peers.parse(list)
            case "--quick": quick = true
            case "--list": list = true
            case "-h", "--help": throw BenchError.usage("")
            default:
                if argument.hasPrefix("-") { throw BenchError.usage("unknown option \(argument)") }
                selection.append(argument)
            }
        }
    }
}

/// Sizes of every workload, from the defaults, `--num` and `--quick`.
struct BenchSizes {
    /// Keys of the engine workloads and records of YCSB.
    var keys: Int
    /// Durable single-record commits of `fillsync` (each costs an fdatasync).
    var syncCommits: Int
    /// Durable commits of each `fillsync-threads` run, shared among the threads.
    var threadedSyncCommits: Int
    /// Operations of each YCSB workload.
    var ycsbOperations: Int
    /// Employees of the Objects workloads.
    var employees: Int
    /// Employees updated, and deleted, in the Objects round.
    var employeeChanges: Int
    /// Objects fetched by identifier.
    var fetchesByID: Int
    /// Records per batch (one LogStore commit, one SQLite transaction) in bulk writes.
    var batch = 1000

    init(options: BenchOptions) {
        let defaultKeys = options.quick ? 10_000 : 1_000_000
        keys = options.num ?? defaultKeys
        employees = options.num ?? defaultKeys
        syncCommits = options.quick ? 50 : 2000
        threadedSyncCommits = options.quick ? 64 : 2000
        ycsbOperations = options.quick ? 2000 : min(100_000, max(keys, 1000))
        employeeChanges = max(employees / 10, 1)
        fetchesByID = min(employees, 100_000)
    }

    var valueSize: Int { 40 }
}
