import Foundation

/// `logbook-bench`: Logbook and SQLite on identical workloads, side by side (issue 6).
@main
enum LogbookBench {
    static var workloads: [Workload] {
        EngineWorkloads.all + SyncWorkloads.all + CompactWorkload.all + YCSBWorkloads.all
            + ObjectWorkloads.all + IndexWorkloads.all + MigrationWorkloads.all + QueryWorkloads.all
            + ResourceWorkloads.all
            + ToolWorkloads.all + EnumerateMemoryWorkload.all + BackupWorkload.all
            + HistoryWorkloads.all + ContextSyncWorkloads.all + OrderedWorkloads.all
            + ManyToManyWorkloads.all + TypeWorkloads.all + StudioWorkloads.all
            + ReplicaWorkloads.all
    }

    static func main() {
        // Output piped into `head` must not kill the run before it removes its directories.
        signal(SIGPIPE, SIG_IGN)
        let options: BenchOptions
        do {
            options = try BenchOptions(arguments: Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(2)
        }
        if let child = options.child { exit(ChildProcess.runChild(child)) }
        if options.list {
            for workload in workloads {
                print("\(workload.group)\t\(workload.name)\t\(workload.summary)")
            }
            return
        }
        let chosen = workloads.filter {
            options.selection.isEmpty || options.selection.contains($0.name)
                || options.selection.contains($0.group)
        }
        let known = Set(workloads.flatMap { [$0.name, $0.group] })
        if let unknown = options.selection.first(where: { !known.contains($0) }) {
            FileHandle.standardError.write(
                Data("unknown workload \(unknown); --list shows the names\n".utf8))
            exit(2)
        }
        if options.quick { benchSegmentSize.store(64 << 10, ordering: .relaxed) }
        let context = BenchContext(
            options: options, sizes: BenchSizes(options: options), reporter: Reporter())
        let header = Machine.describe(options: options)
        for (key, value) in header.sorted(by: { $0.key < $1.key }) {
            context.reporter.note("\(key): \(value)")
        }
        _ = valuePool  // built before any timing starts
        var failures: [String] = []
        let total = measure {
            for repetition in 1...options.repetitions {
                context.reporter.beginRepetition()
                if options.repetitions > 1 {
                    context.reporter.note("repetition \(repetition) of \(options.repetitions)")
                }
                runAll(chosen, context, &failures)
            }
        }
        if !options.quick {
            for line in context.reporter.targetLines() { context.reporter.note("target: \(line)") }
        }
        context.reporter.note("total \(String(format: "%.1f", total)) s, \(failures.count) failed")
        for failure in failures { FileHandle.standardError.write(Data((failure + "\n").utf8)) }
        do {
            if let path = options.jsonPath {
                try context.reporter.writeJSON(to: path, header: header)
            }
            if let path = options.markdownPath {
                let command = (["logbook-bench"] + CommandLine.arguments.dropFirst()).joined(
                    separator: " ")
                try context.reporter.writeMarkdown(to: path, header: header, command: command)
            }
        } catch {
            FileHandle.standardError.write(Data("cannot write results: \(error)\n".utf8))
            exit(1)
        }
        exit(failures.isEmpty ? 0 : 1)
    }
}

extension LogbookBench {
    /// Runs each workload; a failure is printed and kept, and the next workload runs.
    static func runAll(_ workloads: [Workload], _ context: BenchContext, _ failures: inout [String])
    {
        for workload in workloads {
            do {
                try workload.run(context)
            } catch {
                let message = "FAILED \(workload.name): \(error)"
                emit(message)
                failures.append(message)
            }
        }
    }
}

/// The facts a result is meaningless without.
enum Machine {
    static func describe(options: BenchOptions) -> [String: String] {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) {
            String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
        }
        let sizes = BenchSizes(options: options)
        let peers = Peers.chosen(options)
        var facts = [
            "date": ISO8601DateFormatter().string(from: Date()),
            "machine": "\(ProcessInfo.processInfo.activeProcessorCount) cores, "
                + "\(ProcessInfo.processInfo.physicalMemory >> 30) GiB, Linux \(release)",
            "sqlite":
                "\(SQLiteSettings.version), WAL, prepared statements, one transaction per batch",
            "sizes": "keys \(sizes.keys), employees \(sizes.employees), batch \(sizes.batch), "
                + "fillsync \(sizes.syncCommits), ycsb ops \(sizes.ycsbOperations)"
                + (options.repetitions > 1 ? ", best of \(options.repetitions) runs" : "")
                + (options.quick
                    ? " (--quick: checks correctness, not timings; LogStore segments of 64 KiB)"
                    : ""),
            "engines": "LogStore and Logbook from the root package (path ..), against "
                + (peers.isEmpty
                    ? "no peer in the engine and YCSB groups"
                    : peers.map { Peers.displayName($0.label) }.joined(separator: ", ")
                        + " in the engine and YCSB groups")
                + "; against SQLite in the others",
            "engine rows": "LogStore opened with automatic compaction off "
                + "(autoCompactionDeadFraction = nil) in every engine, YCSB and fillsync "
                + "workload; `compact` times one compaction on request",
            "swift": firstLine(of: ["swift", "--version"]) ?? "unknown",
            "load average at start": firstLine(of: ["cat", "/proc/loadavg"]) ?? "unknown",
            "commit": firstLine(of: ["git", "log", "-1", "--format=%h %s"]) ?? "unknown",
        ]
        for peer in peers where peer != SQLiteEngine.self {
            facts[peer.label] =
                "buffered rows: \(peer.durabilitySummary(durable: false)); durable rows: "
                + peer.durabilitySummary(durable: true)
        }
        return facts
    }

    /// The first line `command` prints, or `nil` if it cannot run (best effort, for the header).
    static func firstLine(of command: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init)
    }
}
