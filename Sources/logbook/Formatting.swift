/// Text forms of bytes and numbers shared by the commands' output.
enum Formatting {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Lower-case hex, two digits a byte.
    static func hex(_ bytes: some Collection<UInt8>) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            result.append(hexDigits[Int(byte >> 4)])
            result.append(hexDigits[Int(byte & 15)])
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The bytes as text if they are valid UTF-8 without control characters, else `nil`.
    static func printableText(_ bytes: [UInt8]) -> String? {
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

    /// `text` in double quotes with `"` and `\` escaped (JSON string syntax).
    static func quoted(_ text: String) -> String { "\"" + escapedJSON(text) + "\"" }

    /// `text` escaped for the inside of a JSON string.
    static func escapedJSON(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value):
                let digits = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

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

    /// `text` padded with spaces on the left to `width` characters.
    static func padLeft(_ text: String, _ width: Int) -> String {
        let count = text.count
        return count >= width ? text : String(repeating: " ", count: width - count) + text
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
    mutating func flush(to output: inout some TextOutputStream) {
        for row in rows {
            var line = ""
            for (i, cell) in row.enumerated() {
                if i > 0 { line += "  " }
                if i == row.count - 1 && !rightAligned.contains(i) {
                    line += cell
                } else {
                    line +=
                        rightAligned.contains(i)
                        ? Formatting.padLeft(cell, widths[i]) : Formatting.padRight(cell, widths[i])
                }
            }
            while line.last == " " { line.removeLast() }
            output.write(line + "\n")
        }
        rows.removeAll(keepingCapacity: true)
    }
}
