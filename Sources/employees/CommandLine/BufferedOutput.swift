#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The commands' output: bytes gathered in a buffer and handed on 64 KiB at a time, to a file
/// descriptor (standard output) or kept in memory (tests, and the demo, which shows what each
/// command printed). Formatting code appends fields straight into the buffer, so a long listing
/// costs one `write(2)` per 64 KiB, not one per line or field.
///
/// A failed write to the descriptor (a full disk, a closed pipe with SIGPIPE ignored) is
/// ``EmployeesError/output(_:)`` from the write that flushed, and from every write after it.
/// Not thread-safe.
final class BufferedOutput {
    private enum Destination {
        case descriptor(Int32)
        case memory
    }

    private let destination: Destination
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// What a memory output has been given (the buffer included once flushed).
    private var kept: [UInt8] = []
    private var failure: EmployeesError?

    /// Output to the open file descriptor `descriptor` (not closed here).
    init(descriptor: Int32, capacity: Int = 64 << 10) {
        destination = .descriptor(descriptor)
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    /// Output kept in memory; read it with ``text``.
    init() {
        destination = .memory
        capacity = 64 << 10
    }

    /// Standard output.
    static func standardOutput() -> BufferedOutput { BufferedOutput(descriptor: 1) }

    /// Everything written so far, for a memory output.
    var text: String {
        String(decoding: kept + buffer, as: UTF8.self)
    }

    /// The lines written so far (without their line breaks), for a memory output.
    var lines: [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Appends `text`.
    @inline(__always)
    func write(_ text: String) throws(EmployeesError) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= capacity { try flush() }
    }

    /// Appends `text` and a line break.
    func writeLine(_ text: String) throws(EmployeesError) {
        try write(text)
        try write(byte: UInt8(ascii: "\n"))
    }

    /// Appends one byte.
    @inline(__always)
    func write(byte: UInt8) throws(EmployeesError) {
        buffer.append(byte)
        if buffer.count >= capacity { try flush() }
    }

    /// Appends `bytes`.
    @inline(__always)
    func write(_ bytes: UnsafeRawBufferPointer) throws(EmployeesError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { try flush() }
    }

    /// Appends `count` spaces.
    @inline(__always)
    func write(spaces count: Int) throws(EmployeesError) {
        var left = count
        while left > 0 {
            let part = min(left, Self.spaces.count)
            Self.spaces.withUnsafeBufferPointer { buffer.append(contentsOf: $0[..<part]) }
            left -= part
            if buffer.count >= capacity { try flush() }
        }
    }

    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 256)

    /// Appends the decimal digits of `value` (and its sign).
    @inline(__always)
    func write(decimal value: Int64) throws(EmployeesError) {
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            buffer.append(contentsOf: digits[start...])
        }
        if buffer.count >= capacity { try flush() }
    }

    /// Hands the buffer on: writes it all to the descriptor, or keeps it in memory.
    func flush() throws(EmployeesError) {
        if let failure { throw failure }
        switch destination {
        case .memory:
            kept += buffer
        case .descriptor(let descriptor):
            var offset = 0
            while offset < buffer.count {
                let written = buffer.withUnsafeBytes {
                    systemWrite(descriptor, $0.baseAddress! + offset, $0.count - offset)
                }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    let reason = String(cString: strerror(written < 0 ? errno : EIO))
                    buffer.removeAll(keepingCapacity: true)
                    let error = EmployeesError.output(reason)
                    failure = error
                    throw error
                }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// The number of decimal digits of `value` (with its sign).
func decimalWidth(_ value: Int64) -> Int {
    var magnitude = value.magnitude
    var count = value < 0 ? 2 : 1
    while magnitude >= 10 {
        magnitude /= 10
        count += 1
    }
    return count
}
