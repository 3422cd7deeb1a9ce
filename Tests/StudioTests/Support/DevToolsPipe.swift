import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a conversation with the browser ended; each case carries the tail of its standard error.
enum DevToolsError: Error, CustomStringConvertible {
    /// The browser exited (its status, `nil` if it could not be reaped yet).
    case browserExited(status: Int32?, stderr: String)
    /// Nothing answered `what` within `seconds`.
    case timedOut(waitingFor: String, seconds: Int, stderr: String)
    /// A command was answered with an error.
    case commandFailed(method: String, message: String)
    /// A message that is not a JSON object, or an answer without what it should hold.
    case malformed(String)
    /// A system call failed with `errno`.
    case system(String, Int32)

    var description: String {
        switch self {
        case .browserExited(let status, let stderr):
            "chromium exited (status \(status.map(String.init) ?? "unknown")); stderr: \(stderr)"
        case .timedOut(let what, let seconds, let stderr):
            "chromium: no \(what) within \(seconds) s; stderr: \(stderr)"
        case .commandFailed(let method, let message): "chromium: \(method) failed: \(message)"
        case .malformed(let text): "chromium: malformed message: \(text.prefix(300))"
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        }
    }
}

/// The Chrome DevTools Protocol over `--remote-debugging-pipe`: JSON messages each ended by a NUL
/// byte, read by the browser from its descriptor 3 and written to its descriptor 4. Both are one
/// end of a socket pair here (so that a write to a dead browser fails with `EPIPE` instead of
/// raising `SIGPIPE`).
///
/// Owns the browser's process: it is killed, if still running, when this is released. Every
/// wait has a deadline, and notices the browser's exit. Not thread-safe: one test uses it.
final class DevToolsPipe {
    let process: SpawnedProcess
    private let socket: Int32
    private let stderrPath: String
    private var received: [UInt8] = []
    /// Bytes of `received` known to hold no NUL.
    private var scanned = 0
    private var nextID = 1
    /// Events read while waiting for something else, oldest first.
    private var events: [[String: Any]] = []

    /// Starts `executable arguments…` (which must include `--remote-debugging-pipe`) with its
    /// standard error in `stderr`.
    init(_ executable: String, _ arguments: [String], stderr: String, environment: [String])
        throws
    {
        var ends: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
            throw DevToolsError.system("socketpair", errno)
        }
        // The browser's end goes to its descriptors 3 and 4: keep it off those numbers here.
        let browserEnd = fcntl(ends[1], F_DUPFD_CLOEXEC, 5)
        close(ends[1])
        defer { if browserEnd >= 0 { close(browserEnd) } }
        guard browserEnd >= 0 else {
            close(ends[0])
            throw DevToolsError.system("fcntl", errno)
        }
        #if canImport(Darwin)
            for end in [ends[0], browserEnd] {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                var on: Int32 = 1
                setsockopt(end, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            }
        #endif
        socket = ends[0]
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        stderrPath = stderr
        do {
            process = try SpawnedProcess(
                executable, arguments, stdout: "/dev/null", stderr: stderr,
                environment: environment,
                descriptors: [(child: 3, parent: browserEnd), (child: 4, parent: browserEnd)])
        } catch {
            close(socket)
            throw error
        }
    }

    deinit {
        close(socket)
    }

    /// The last bytes the browser wrote to its standard error.
    var stderrTail: String {
        String(decoding: readFile(stderrPath).suffix(1200), as: UTF8.self)
    }

    /// Sends `method` with `parameters` (to the target attached as `session`, if given) and waits
    /// up to `seconds` for its result; events read meanwhile are kept for ``event(_:session:within:where:)``.
    /// - Throws: ``DevToolsError``.
    @discardableResult
    func command(
        _ method: String, _ parameters: [String: Any] = [:], session: String? = nil,
        within seconds: Int = 60
    ) throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(seconds)
        let id = nextID
        nextID += 1
        var message: [String: Any] = ["id": id, "method": method, "params": parameters]
        if let session { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        try transmit(bytes, until: deadline, waitingFor: method, seconds: seconds)
        while true {
            let answer = try nextMessage(until: deadline, waitingFor: method, seconds: seconds)
            guard answer["id"] as? Int == id else {
                if answer["method"] != nil { events.append(answer) }
                continue
            }
            if let error = answer["error"] as? [String: Any] {
                throw DevToolsError.commandFailed(
                    method: method, message: "\(error["message"] ?? error)")
            }
            return answer["result"] as? [String: Any] ?? [:]
        }
    }

    /// Waits up to `seconds` for the event `method` of `session` whose parameters satisfy
    /// `matches`, and returns its parameters; events read before it that it is not stay kept.
    /// - Throws: ``DevToolsError``.
    func event(
        _ method: String, session: String?, within seconds: Int = 60,
        where matches: ([String: Any]) -> Bool = { _ in true }
    ) throws -> [String: Any] {
        func fits(_ message: [String: Any]) -> Bool {
            message["method"] as? String == method && message["sessionId"] as? String == session
                && matches(message["params"] as? [String: Any] ?? [:])
        }
        if let index = events.firstIndex(where: fits) {
            return events.remove(at: index)["params"] as? [String: Any] ?? [:]
        }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let message = try nextMessage(until: deadline, waitingFor: method, seconds: seconds)
            if fits(message) { return message["params"] as? [String: Any] ?? [:] }
            if message["method"] != nil { events.append(message) }
        }
    }

    /// Forgets the events kept so far.
    func discardEvents() { events.removeAll() }

    private func transmit(
        _ bytes: [UInt8], until deadline: ContinuousClock.Instant, waitingFor what: String,
        seconds: Int
    ) throws {
        var sent = 0
        while sent < bytes.count {
            try wait(for: Int16(POLLOUT), until: deadline, waitingFor: what, seconds: seconds)
            #if canImport(Glibc)
                let flags = Int32(MSG_NOSIGNAL)
            #else
                let flags: Int32 = 0
            #endif
            let count = bytes.withUnsafeBytes {
                send(socket, $0.baseAddress! + sent, bytes.count - sent, flags)
            }
            if count > 0 {
                sent += count
            } else if errno == EPIPE || errno == ECONNRESET {
                throw exited()
            } else if errno != EAGAIN && errno != EINTR {
                throw DevToolsError.system("send", errno)
            }
        }
    }

    private func nextMessage(
        until deadline: ContinuousClock.Instant, waitingFor what: String, seconds: Int
    ) throws -> [String: Any] {
        while true {
            if let end = received[scanned...].firstIndex(of: 0) {
                let data = Data(received[..<end])
                received.removeSubrange(...end)
                scanned = 0
                guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                else { throw DevToolsError.malformed(String(decoding: data, as: UTF8.self)) }
                return object
            }
            scanned = received.count
            try wait(for: Int16(POLLIN), until: deadline, waitingFor: what, seconds: seconds)
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = recv(socket, &chunk, chunk.count, 0)
            if count > 0 {
                received += chunk[..<count]
            } else if count == 0 || errno == ECONNRESET {
                throw exited()
            } else if errno != EAGAIN && errno != EINTR {
                throw DevToolsError.system("recv", errno)
            }
        }
    }

    /// Polls the socket for `events` in slices, until the deadline or the browser's exit.
    private func wait(
        for events: Int16, until deadline: ContinuousClock.Instant, waitingFor what: String,
        seconds: Int
    ) throws {
        while true {
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw DevToolsError.system("poll", errno) }
            if !process.isRunning { throw exited() }
            if ContinuousClock.now >= deadline {
                throw DevToolsError.timedOut(waitingFor: what, seconds: seconds, stderr: stderrTail)
            }
        }
    }

    private func exited() -> DevToolsError {
        .browserExited(status: process.exitStatus(within: 5), stderr: stderrTail)
    }
}
