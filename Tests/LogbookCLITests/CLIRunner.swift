import Foundation
import LogStore
import TestSupport

/// What one run of the `logbook` executable did.
struct CLIResult {
    /// The exit status, or the signal's number if it was killed by one.
    var status: Int32
    /// Whether it ended by a signal (a crash or trap) rather than by exiting.
    var crashed = false
    /// Everything it wrote on standard output.
    var stdout: String
    /// Everything it wrote on standard error.
    var stderr: String
}

/// Runs the built `logbook` executable as a child process (`$LOGBOOK_CLI` names another one).
enum CLI {
    /// The executable's path, or `nil` if none is built.
    static let executable = builtExecutable("logbook", overriddenBy: "LOGBOOK_CLI")

    /// Runs `logbook arguments…`, with `input` on standard input (through ``ChildProcess``).
    static func run(_ arguments: [String], input: String = "") throws -> CLIResult {
        guard let executable else {
            throw CocoaError(
                .fileNoSuchFile,
                userInfo: [
                    NSLocalizedDescriptionKey: "logbook executable not built; run `swift build`"
                ])
        }
        return try ChildProcess.shared.run(executable, arguments, input: input)
    }
}

/// Small stores for the tests, built with the engine directly.
enum Stores {
    /// The store of FORMAT.md's example: `e1` → `Ann` and `e2` → `Bo` in keyspace `people` in
    /// one commit, then a delete of `e1`; plus (when `binary`) a third commit putting the bytes
    /// 00 ff under key `k` in keyspace `blobs`.
    static func people(at path: String, binary: Bool = false) throws {
        let store = try openStore(path)
        var batch = WriteBatch()
        batch.put(b("Ann"), for: b("e1"), in: "people")
        batch.put(b("Bo"), for: b("e2"), in: "people")
        try store.commit(batch)
        try store.delete(b("e1"), in: "people")
        if binary { try store.put([0x00, 0xFF], for: b("k"), in: "blobs") }
        try store.close()
    }

    /// A store of several sealed segments: `commits` commits of one put each to keyspace `k`,
    /// with segments of about 100 bytes.
    static func manySegments(at path: String, commits: Int = 6) throws {
        var options = LogStoreOptions()
        options.segmentSize = 100
        let store = try openStore(path, options: options)
        for i in 0..<commits { try store.put(b("value \(i)"), for: b("key\(i % 4)"), in: "k") }
        try store.close()
    }

    /// Opens a store for writing, retrying briefly while it is `locked`: a child process that
    /// some other code of this process is starting can hold a copy of the lock file's
    /// descriptor until its `exec` (the tool itself is started through ``ChildProcess``, which
    /// avoids that).
    static func openStore(_ path: String, options: LogStoreOptions = LogStoreOptions()) throws
        -> LogStore
    {
        for _ in 0..<100 {
            do {
                return try LogStore(path: path, options: options)
            } catch LogStoreError.locked {
                usleep(10_000)
            }
        }
        return try LogStore(path: path, options: options)
    }
}
