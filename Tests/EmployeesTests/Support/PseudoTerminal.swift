import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pseudo-terminal pair for running the interactive screen in a child process: the child
/// gets the secondary side as its standard input, output and error; the test types into and
/// reads from the primary side.
final class PseudoTerminal {
    let primary: Int32
    let secondary: Int32
    /// Everything the child has written so far.
    private(set) var output: [UInt8] = []

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(width: Int = 60, height: Int = 14) throws {
        #if os(Linux)
            // posix_openpt and friends are not visible through Glibc; use the devpts ioctls
            // (TIOCSPTLCK, TIOCGPTN) that they wrap.
            primary = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            var unlock: Int32 = 0
            var number: UInt32 = 0
            guard primary >= 0, ioctl(primary, 0x4004_5431, &unlock) == 0,
                ioctl(primary, 0x8004_5430, &number) == 0
            else { throw Failure(description: "cannot open a pseudo-terminal (errno \(errno))") }
            let name = "/dev/pts/\(number)"
        #else
            primary = posix_openpt(O_RDWR | O_NOCTTY)
            guard primary >= 0, grantpt(primary) == 0, unlockpt(primary) == 0,
                let cName = ptsname(primary)
            else { throw Failure(description: "cannot open a pseudo-terminal (errno \(errno))") }
            let name = String(cString: cName)
        #endif
        secondary = open(name, O_RDWR | O_NOCTTY)
        guard secondary >= 0 else { throw Failure(description: "cannot open \(name)") }
        var size = winsize(
            ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(primary, UInt(TIOCSWINSZ), &size)
    }

    deinit {
        close(primary)
        close(secondary)
    }

    /// A handle on the secondary side for `Process.standardInput`/`standardOutput`.
    var secondaryHandle: FileHandle { FileHandle(fileDescriptor: secondary, closeOnDealloc: false) }

    /// Sends `text` as if typed.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(primary, $0.baseAddress, $0.count) }
    }

    /// Reads output until `condition` holds on the text read so far, or `timeout` seconds pass.
    @discardableResult
    func read(until condition: (String) -> Bool, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(text) { return true }
            drain(waitingMilliseconds: 50)
        }
        return condition(text)
    }

    /// Reads whatever is available, waiting up to `waitingMilliseconds` for the first byte.
    func drain(waitingMilliseconds: Int32 = 0) {
        var descriptor = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
        var wait = waitingMilliseconds
        while poll(&descriptor, 1, wait) > 0 {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes {
                systemRead(primary, $0.baseAddress, $0.count)
            }
            guard count > 0 else { return }
            output += buffer.prefix(count)
            wait = 0
        }
    }

    /// The output so far as text.
    var text: String { String(decoding: output, as: UTF8.self) }

    /// The output with escape sequences replaced by line breaks: the drawn text, line by line.
    var drawnLines: [String] {
        text.replacingOccurrences(
            of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "\n", options: .regularExpression
        )
        .split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
    }

    /// The text last drawn on each screen row (1-based), without styles: what the screen
    /// shows now, as `TerminalRenderer` draws it (`ESC[row;1H ESC[2K` then the line).
    var drawnRows: [Int: String] {
        var rows: [Int: String] = [:]
        let pattern = "\u{1B}\\[([0-9]+);1H\u{1B}\\[2K((?:[^\u{1B}]|\u{1B}\\[[0-9;]*m)*)"
        let regex = try? NSRegularExpression(pattern: pattern)
        let text = self.text as NSString
        for match in regex?.matches(in: self.text, range: NSRange(location: 0, length: text.length))
            ?? []
        {
            guard let row = Int(text.substring(with: match.range(at: 1))) else { continue }
            rows[row] = text.substring(with: match.range(at: 2)).replacingOccurrences(
                of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        }
        return rows
    }

    /// Whether the secondary side is back in canonical mode with echo (the terminal restored).
    var isCooked: Bool {
        var settings = termios()
        guard tcgetattr(secondary, &settings) == 0 else { return false }
        return settings.c_lflag & tcflag_t(ICANON) != 0 && settings.c_lflag & tcflag_t(ECHO) != 0
    }
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int)
    -> Int
{
    #if canImport(Glibc)
        return Glibc.read(descriptor, buffer, count)
    #else
        return Darwin.read(descriptor, buffer, count)
    #endif
}
