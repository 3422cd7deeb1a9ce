/// The one rule for salaries, shared by the command line and the form: a whole number ≥ 0.
enum SalaryParser {
    /// The salary in `text` (surrounding spaces ignored), or an error saying what is wrong.
    ///
    /// - Throws: ``EmployeesError/invalidSalary(_:)`` for anything but decimal digits, or a
    ///   number too large for a 64-bit salary.
    static func parse(_ text: String) throws(EmployeesError) -> Int64 {
        let trimmed = text.trimmingSpaces()
        guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw .invalidSalary(text)
        }
        guard let value = Int64(trimmed) else { throw .invalidSalary(text) }
        return value
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (no Foundation needed).
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }),
            let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
