import Logbook

extension LogbookEmployeeRepository {
    /// The app's error for a Logbook error: a lock becomes ``EmployeesError/storeLocked(path:)``,
    /// a problem with `filter` ``EmployeesError/invalidFilter(filter:reason:)`` saying where
    /// it is, the rest ``EmployeesError/store(_:)`` with Logbook's own message.
    static func translate(
        _ error: any Error, path: String, filter: String? = nil, columns: [Int] = []
    ) -> EmployeesError {
        guard let error = error as? LogbookError else {
            return .store("the store at \(path) failed: \(error)")
        }
        switch error {
        case .store(.locked):
            return .storeLocked(path: path)
        case .predicateSyntax, .unsupportedPredicate, .unknownAttribute:
            guard let filter else { return .store(error.description) }
            return .invalidFilter(
                filter: filter, reason: filterReason(error, in: filter, columns: columns))
        default:
            return .store(error.description)
        }
    }

    /// Why `filter` was refused, in the app's words, with the column in `filter` (Logbook's
    /// column in the text it parsed mapped back through `columns`; for an unknown field, where
    /// the field's name stands).
    private static func filterReason(_ error: LogbookError, in filter: String, columns: [Int])
        -> String
    {
        switch error {
        case .predicateSyntax(let message, _, let column):
            // The parsed text is one line (see FilterText); past its end, count on.
            let original =
                column <= columns.count
                ? columns[column - 1] : (columns.last ?? 0) + column - columns.count
            // A comparison with the company gets the option that does it, not Logbook's `%@`.
            if message.hasPrefix("company is a relationship") {
                return "column \(original): company is a relationship to Company; to list a "
                    + "company's employees use --company NAME"
            }
            return "column \(original): \(message)"
        case .unknownAttribute(_, let attribute):
            let fields = EmployeeSortKey.allCases.map(\.rawValue).joined(separator: ", ")
            let place =
                FilterText.column(ofWord: attribute, in: filter).map { "column \($0): " } ?? ""
            let hint =
                attribute == "company"
                ? "; to list a company's employees use --company NAME"
                : "; the fields are \(fields), and text values need quotes ('Ann')"
            return "\(place)unknown field \"\(attribute)\"\(hint)"
        case .unsupportedPredicate(let reason):
            return reason
        default:
            return error.description
        }
    }
}
