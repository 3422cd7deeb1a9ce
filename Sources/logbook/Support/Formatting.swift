import Foundation
import Logbook

/// Text forms of bytes and numbers shared by the commands' output.
enum Formatting {
    /// Lower-case hex, two digits a byte.
    static func hex(_ bytes: [UInt8]) -> String {
        AttributeValue.data(Data(bytes)).text(as: .csv)
    }

    /// The bytes as text if they are valid UTF-8 without control characters, else `nil`.
    static func printableText(_ bytes: [UInt8]) -> String? {
        // Most binary bytes (keys of objects start with 0x00) fail here, before any decoding.
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        for scalar in text.unicodeScalars
        where scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) {
            return nil
        }
        return text
    }

    /// How raw bytes show for people: `"text"` (quoted, escaped) when printable UTF-8, else
    /// `0x` and hex; `""` for none.
    static func display(_ bytes: [UInt8]) -> String {
        if let text = printableText(bytes) { return quoted(text) }
        return "0x" + hex(bytes)
    }

    /// `text` as a JSON string: in double quotes, escaped.
    static func quoted(_ text: String) -> String { AttributeValue.string(text).text(as: .json) }

    /// `1 key`, `2 keys`: a count and a noun, plural unless the count is one.
    static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }

    /// A byte count for people: `89 B`, `12.3 KiB`, `4.0 MiB`.
    static func byteCount(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return fixed(value, digits: 1) + " " + units[unit]
    }

    /// `value` with exactly `digits` digits after the point (no locale, no Foundation).
    static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return String(value) }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int64(scaled / scale)
        let fraction = Int64(scaled) - whole * Int64(scale)
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard digits > 0 else { return sign + String(whole) }
        let fractionText = String(fraction)
        return sign + String(whole) + "."
            + String(repeating: "0", count: digits - fractionText.count) + fractionText
    }

    /// `text` with each line longer than `width` broken at spaces; continuation lines keep the
    /// line's indentation.
    static func wrap(_ text: String, width: Int) -> String {
        var result: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }
            var current = Substring(line)
            while current.count > width,
                let cut = current.prefix(width + 1).lastIndex(of: " "),
                cut > current.index(current.startIndex, offsetBy: indent.count)
            {
                result.append(current[..<cut])
                current = indent + current[current.index(after: cut)...]
            }
            result.append(current)
        }
        return result.joined(separator: "\n")
    }

    /// `text` padded with spaces on the right to `width` characters.
    static func padRight(_ text: String, _ width: Int) -> String {
        let count = text.count
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }
}

/// Rows of cells printed with aligned columns. Column widths only grow, so a long listing
/// printed in chunks (``flush(to:)`` every few hundred rows) stays aligned as far as it can
/// without holding everything in memory.
struct AlignedTable {
    /// Which columns are right-aligned (numbers).
    var rightAligned: Set<Int> = []
    private var widths: [Int] = []
    private var rows: [[String]] = []

    /// A table whose columns in `rightAligned` are right-aligned.
    init(rightAligned: Set<Int> = []) {
        self.rightAligned = rightAligned
    }

    /// Rows waiting to be printed.
    var pendingRows: Int { rows.count }

    /// Adds a row (the last cell is never padded).
    mutating func append(_ row: [String]) {
        for (i, cell) in row.enumerated() {
            if i >= widths.count { widths.append(0) }
            widths[i] = max(widths[i], cell.count)
        }
        rows.append(row)
    }

    /// Prints the rows added since the last flush.
    mutating func flush(to output: FileOutput) {
        for row in rows {
            output.render { line in
                let start = line.count
                for (i, cell) in row.enumerated() {
                    if i > 0 { line.appendLiteral("  ") }
                    let padding = max(0, widths[i] - cell.count)
                    if rightAligned.contains(i) {
                        line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: padding))
                    }
                    line.append(contentsOf: cell.utf8)
                    if !rightAligned.contains(i) && i < row.count - 1 {
                        line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: padding))
                    }
                }
                while line.count > start && line.last == UInt8(ascii: " ") { line.removeLast() }
                line.append(UInt8(ascii: "\n"))
            }
        }
        rows.removeAll(keepingCapacity: true)
    }
}

extension [UInt8] {
    /// Appends the UTF-8 of `text`.
    mutating func appendLiteral(_ text: StaticString) {
        append(
            contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends the UTF-8 of `text`.
    mutating func appendText(_ text: String) { append(contentsOf: text.utf8) }

    /// Appends `text` as a JSON string.
    mutating func appendJSON(_ text: String) {
        AttributeValue.string(text).append(as: .json, to: &self)
    }

    /// Appends `number` in decimal.
    mutating func appendNumber(_ number: some BinaryInteger) {
        if let small = Int64(exactly: number) {
            AttributeValue.integer(small).append(as: .json, to: &self)
        } else {
            append(contentsOf: String(number).utf8)
        }
    }
}
