#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal settings to put back, readable from a signal handler. Written only by
/// ``RawTerminal`` on the main thread before handlers are installed, and cleared after they
/// are removed; a handler only reads it.
nonisolated(unsafe) private var savedSettings = termios()
nonisolated(unsafe) private var hasSavedSettings = false

/// Leaves the alternate screen and shows the cursor again.
private let restoreSequence: [UInt8] = Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8)

/// Puts the terminal back; async-signal-safe (only `tcsetattr` and `write`).
private func restoreTerminalSettings() {
    guard hasSavedSettings else { return }
    _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedSettings)
    restoreSequence.withUnsafeBytes { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

/// Restores the terminal, then dies of the same signal so the parent sees why we stopped.
private func restoreAndReraise(_ signalNumber: Int32) {
    restoreTerminalSettings()
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
}

/// The controlling terminal in raw mode with the alternate screen, for the interactive list.
///
/// While it is active, keys arrive one by one without echo, and Ctrl-C is a key (``Key/interrupt``)
/// rather than a signal. ``restore()`` — also run on SIGTERM, SIGHUP, SIGQUIT and a SIGINT sent by
/// `kill` — puts the settings and the main screen back. One at a time per process; main thread only.
final class RawTerminal {
    private static let handledSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    private var isActive = false

    /// Whether standard input and output are both a terminal.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Switches to raw mode and the alternate screen.
    /// - Throws: ``EmployeesError/store(_:)`` if the terminal settings cannot be read or set.
    func activate() throws(EmployeesError) {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else {
            throw .store("cannot read the terminal settings (errno \(errno))")
        }
        savedSettings = settings
        hasSavedSettings = true
        // A parent may have started us with these blocked (some process launchers do); a
        // blocked SIGTERM would leave the terminal raw after we are killed.
        var signals = sigset_t()
        sigemptyset(&signals)
        for signalNumber in Self.handledSignals {
            signal(signalNumber) { restoreAndReraise($0) }
            sigaddset(&signals, signalNumber)
        }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        settings.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        settings.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
        withUnsafeMutableBytes(of: &settings.c_cc) { controlCharacters in
            controlCharacters[Int(VMIN)] = 1
            controlCharacters[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings) == 0 else {
            restore()
            throw .store("cannot put the terminal in raw mode (errno \(errno))")
        }
        isActive = true
        write("\u{1B}[?1049h\u{1B}[H\u{1B}[2J")
    }

    /// Puts the terminal back as it was; safe to call more than once.
    func restore() {
        restoreTerminalSettings()
        for signalNumber in Self.handledSignals { signal(signalNumber, SIG_DFL) }
        hasSavedSettings = false
        isActive = false
    }

    deinit { if isActive { restore() } }

    /// The window size in characters; 80×24 if it cannot be read.
    func size() -> (width: Int, height: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0,
            window.ws_row > 0
        else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Waits up to `timeout` milliseconds for input and returns what arrived: `[]` on timeout,
    /// `nil` at the end of input or on a read error.
    func read(timeout: Int32) -> [UInt8]? {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeout)
        if ready == 0 || (ready < 0 && errno == EINTR) { return [] }
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes {
            systemRead(STDIN_FILENO, $0.baseAddress, $0.count)
        }
        if count < 0 && errno == EINTR { return [] }
        guard count > 0 else { return nil }
        return Array(buffer.prefix(count))
    }

    /// Writes `text` to standard output in full.
    func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes {
                systemWrite(STDOUT_FILENO, $0.baseAddress, $0.count)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
