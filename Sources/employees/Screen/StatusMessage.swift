/// The screen's status line: the last thing that happened, or the last error.
struct StatusMessage: Sendable, Equatable {
    private(set) var text: String?
    private(set) var isError = false

    mutating func report(_ message: String?, isError: Bool = false) {
        text = message
        self.isError = isError
    }

    mutating func report(_ error: EmployeesError) { report(error.description, isError: true) }

    /// The status line as drawn.
    var line: ScreenFrame.Line {
        ScreenFrame.Line(text: " " + (text ?? ""), style: isError ? .error : .dim)
    }
}
