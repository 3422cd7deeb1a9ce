import Logbook

/// `list --json`, written while the employees stream past: a JSON array of
/// `{"company", "designation", "id", "name", "salary"}` objects, keys sorted; `company` is
/// `{"id", "name"}` or `null`.
///
/// Byte for byte what Foundation's `JSONEncoder` writes with `.prettyPrinted`, `.sortedKeys`
/// and `.withoutEscapingSlashes` (as the app did before it streamed): two-space indents,
/// `" : "` between key and value, `[]` for no rows; in strings `"` and `\` escaped, `\b \f \n
/// \r \t` by name, other control characters as `\u00XX`, everything else as it is.
/// Not thread-safe.
final class EmployeeJSON {
    private let output: BufferedOutput
    private(set) var count = 0

    init(output: BufferedOutput) { self.output = output }

    /// Writes one object.
    /// - Throws: ``EmployeesError/output(_:)``.
    func add(_ employee: EmployeeRecord) throws(EmployeesError) {
        try output.write(count == 0 ? "[\n  {\n" : ",\n  {\n")
        count += 1
        if let company = employee.company {
            try output.write("    \"company\" : {\n      \"id\" : ")
            try string(company.id)
            try output.write(",\n      \"name\" : ")
            try string(company.name)
            try output.write("\n    },\n    \"designation\" : ")
        } else {
            try output.write("    \"company\" : null,\n    \"designation\" : ")
        }
        try string(employee.designation)
        try output.write(",\n    \"id\" : ")
        try string(employee.id)
        try output.write(",\n    \"name\" : ")
        try string(employee.name)
        try output.write(",\n    \"salary\" : ")
        try output.write(decimal: employee.salary)
        try output.write("\n  }")
    }

    /// Closes the array (`[]` if it is empty) and ends the line.
    func finish() throws(EmployeesError) {
        try output.writeLine(count == 0 ? "[]" : "\n]")
    }

    /// `text` as a JSON string.
    private func string(_ text: String) throws(EmployeesError) {
        try output.write(byte: UInt8(ascii: "\""))
        var text = text
        // No quote, backslash or control character: written as it is.
        let plain = text.withUTF8 { ASCIIScan.firstQuoteBackslashOrControl(in: $0, from: 0) == nil }
        if plain {
            try output.write(text)
        } else {
            for byte in text.utf8 { try escaped(byte) }
        }
        try output.write(byte: UInt8(ascii: "\""))
    }

    private func escaped(_ byte: UInt8) throws(EmployeesError) {
        switch byte {
        case UInt8(ascii: "\""): try output.write("\\\"")
        case UInt8(ascii: "\\"): try output.write("\\\\")
        case 0x08: try output.write("\\b")
        case 0x0C: try output.write("\\f")
        case UInt8(ascii: "\n"): try output.write("\\n")
        case UInt8(ascii: "\r"): try output.write("\\r")
        case UInt8(ascii: "\t"): try output.write("\\t")
        case ..<0x20:
            let digits = Array("0123456789abcdef".utf8)
            try output.write("\\u00")
            try output.write(byte: digits[Int(byte >> 4)])
            try output.write(byte: digits[Int(byte & 0xF)])
        default: try output.write(byte: byte)
        }
    }
}
