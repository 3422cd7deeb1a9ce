import Foundation
import LogStore
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Starts programs for the tests through a few long-lived `/bin/sh` processes instead of from
/// the test process itself.
///
/// Why: a child started from this process holds copies of all its descriptors until it runs
/// `exec` (or closes them), and other suites of this process open and close stores all the
/// time. A child that copied a store's `LOCK` descriptor keeps its `flock` alive after the
/// store closes, and a reopen then fails with `locked`. The shells are started once, with
/// nothing but their pipes, so the programs they start inherit no store's descriptor.
final class ChildProcess: Sendable {
    private struct Shell {
        var process: Process
        var commands: Int32
        var answers: Int32
    }

    /// One shell, started on first use, used by one test at a time.
    private final class Slot: Sendable {
        let shell = Locked<Shell?>(nil)
    }

    private let slots = (0..<3).map { _ in Slot() }

    /// The shared launcher.
    static let shared = ChildProcess()

    /// Runs `executable arguments…` with `environment` added, `input` on standard input, and
    /// returns its status and output (both read from files, so any amount fits).
    func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        input: String = ""
    ) throws -> CLIResult {
        let scratch = TemporaryDirectory("logbook-child")
        defer { scratch.remove() }
        let paths = ["in", "out", "err"].map(scratch.child)
        writeFile(paths[0], b(input))
        let assignments = environment.sorted { $0.key < $1.key }.map {
            "\($0.key)=\(quote($0.value)) "
        }
        let command =
            assignments.joined() + ([executable] + arguments).map(quote).joined(separator: " ")
            + " <\(quote(paths[0])) >\(quote(paths[1])) 2>\(quote(paths[2])); echo \"$?\"\n"
        let status = try withShell { shell in try ask(&shell, command) }
        // The shell reports death by signal N as 128 + N.
        return CLIResult(
            status: status > 128 ? status - 128 : status, crashed: status > 128,
            stdout: String(decoding: readFile(paths[1]), as: UTF8.self),
            stderr: String(decoding: readFile(paths[2]), as: UTF8.self))
    }

    /// Runs `body` with an idle shell (started on first use), waiting for one if all are busy.
    private func withShell(_ body: (inout Shell) throws -> Int32) throws -> Int32 {
        for slot in slots {
            if let result = try slot.shell.withLockIfAvailable({ state in try use(&state, body) }) {
                return result
            }
        }
        return try slots[Int.random(in: 0..<slots.count)].shell.withLock { try use(&$0, body) }
    }

    private func use(_ state: inout Shell?, _ body: (inout Shell) throws -> Int32) throws -> Int32 {
        if state == nil {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            let commands = Pipe()
            let answers = Pipe()
            process.standardInput = commands
            process.standardOutput = answers
            process.standardError = FileHandle.nullDevice
            try process.run()
            state = Shell(
                process: process, commands: dup(commands.fileHandleForWriting.fileDescriptor),
                answers: dup(answers.fileHandleForReading.fileDescriptor))
            try? commands.fileHandleForWriting.close()
            try? answers.fileHandleForReading.close()
        }
        return try body(&state!)
    }

    /// Sends one command line and reads the number the shell echoes back.
    private func ask(_ shell: inout Shell, _ command: String) throws -> Int32 {
        var bytes = Array(command.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes {
                write(shell.commands, $0.baseAddress, $0.count)
            }
            guard n > 0 else { throw CocoaError(.fileWriteUnknown) }
            sent += n
        }
        bytes.removeAll()
        var byte: UInt8 = 0
        while read(shell.answers, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") {
                guard let status = Int32(String(decoding: bytes, as: UTF8.self)) else { break }
                return status
            }
            bytes.append(byte)
        }
        throw CocoaError(.fileReadUnknown)
    }
}

/// `text` in single quotes for `/bin/sh`.
private func quote(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
