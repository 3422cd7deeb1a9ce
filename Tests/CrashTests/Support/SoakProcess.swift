import Foundation
import LogStore

#if canImport(Glibc)
    import Glibc
#endif

/// A child of the soak (`logbook-soak-child`) whose standard output is read line by line, on
/// a thread of its own, into `handler`.
final class SoakProcess: Sendable {
    let process: Process
    private let done = DispatchSemaphore(value: 0)

    init(
        _ executable: String, _ arguments: [String], log: String,
        handler: @escaping @Sendable (String) -> Void
    ) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // The backtracer can take minutes over a process that is meant to die.
        process.environment = ["SWIFT_BACKTRACE": "enable=no"]
        let output = Pipe()
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let errors = FileHandle(forWritingAtPath: log)
        errors?.seekToEndOfFile()
        process.standardError = errors
        try process.run()
        try? errors?.close()
        self.process = process
        let reading = output.fileHandleForReading
        let done = done
        Thread.detachNewThread {
            var buffer: [UInt8] = []
            while true {
                let data = reading.availableData
                if data.isEmpty { break }
                buffer += data
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    handler(String(decoding: buffer[..<newline], as: UTF8.self))
                    buffer.removeSubrange(...newline)
                }
            }
            try? reading.close()
            done.signal()
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// Kills it with SIGKILL, and waits until it is gone and its output read; whether it died
    /// of that signal.
    @discardableResult
    func kill() -> Bool {
        Foundation.kill(pid, SIGKILL)
        return waitForExit() && process.terminationReason == .uncaughtSignal
            && process.terminationStatus == SIGKILL
    }

    /// Waits until it exits (at most `timeout` seconds) and its output is read.
    @discardableResult
    func waitForExit(timeout: TimeInterval = 120) -> Bool {
        guard done.wait(timeout: .now() + timeout) == .success else { return false }
        process.waitUntilExit()
        return true
    }

    /// Its resident set in kilobytes (VmRSS), or `nil` once it is gone.
    var residentKB: Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }
}
