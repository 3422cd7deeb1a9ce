import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with SIGINT, SIGTERM and SIGPIPE unblocked and at their defaults (a
/// test runner's thread may block signals, and a child inherits its mask), standard input from
/// `/dev/null`, standard output and error to files, and any further descriptors it is given.
final class SpawnedProcess {
    let pid: pid_t
    private(set) var status: Int32?

    /// Starts `executable arguments…`; `descriptors` maps each of the child's descriptor numbers
    /// to the test's open descriptor it gets a copy of (the test's own stays open: close it after).
    /// - Throws: ``TestClientError/connect(_:)`` with the error of `posix_spawn`.
    init(
        _ executable: String, _ arguments: [String], stdout: String, stderr: String,
        environment: [String] = ["SWIFT_BACKTRACE=enable=no", "PATH=/usr/bin:/bin"],
        descriptors: [(child: Int32, parent: Int32)] = []
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        for descriptor in descriptors {
            // Invariant: no parent descriptor is one the child gets (`dup2` onto itself would keep
            // its close-on-exec flag, and 0–2 are replaced above).
            assert(descriptor.parent > 2 && !descriptors.contains { $0.child == descriptor.parent })
            posix_spawn_file_actions_adddup2(&actions, descriptor.parent, descriptor.child)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] =
            ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw TestClientError.connect(spawned) }
        self.pid = pid
    }

    /// Whether it still runs (reaping it when it has ended).
    var isRunning: Bool {
        guard status == nil else { return false }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
        status = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        return false
    }

    /// Waits for it to exit (up to `seconds`); its status, or `nil` if it still runs.
    func exitStatus(within seconds: Int) -> Int32? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        return status
    }

    /// Sends `signal` if it still runs.
    func signal(_ number: Int32) {
        if isRunning { kill(pid, number) }
    }

    /// Peak resident memory in kilobytes (`VmHWM`), while it runs.
    var peakResidentKB: Int? { procStatus("VmHWM:") }

    /// Resident memory in kilobytes (`VmRSS`), while it runs.
    var residentKB: Int? { procStatus("VmRSS:") }

    private func procStatus(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
            return nil
        }
        return text.split(separator: "\n").first { $0.hasPrefix(field) }?
            .split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            _ = exitStatus(within: 5)
        }
    }
}
