/// `list`'s table for people, written while the employees stream past: id, "name — designation",
/// company, salary flush right, in columns two spaces apart and as wide as their widest cell
/// (in terminal columns, so wide characters keep them aligned).
///
/// The widths depend on every row, so each row is measured as it comes and kept, compactly, in
/// a ``SpillBuffer`` (which moves to a temporary file past a few MiB); ``finish()`` writes the
/// header and the rows, padded. Memory does not grow with the number of rows. Not thread-safe.
final class EmployeeTable {
    private static let header = ["ID", "NAME — DESIGNATION", "COMPANY", "SALARY"]
    private static let minimumWidths = [2, 20, 7, 6]
    private static let separator = " — "

    private let output: BufferedOutput
    private let rows: SpillBuffer
    private var widths: [Int]
    private(set) var count = 0

    /// A table written to `output`; `memoryLimit` bounds the rows kept in memory.
    init(output: BufferedOutput, memoryLimit: Int = 4 << 20) {
        self.output = output
        rows = SpillBuffer(limit: memoryLimit)
        widths = zip(Self.header, Self.minimumWidths).map { max($0.displayWidth, $1) }
    }

    /// Measures and keeps one row.
    /// - Throws: ``EmployeesError/output(_:)`` if the rows cannot be kept.
    func add(_ employee: EmployeeRecord) throws(EmployeesError) {
        count += 1
        // The buffer and the widths are taken out for the row, so that appending to them
        // checks neither exclusive access nor uniqueness per field.
        var bytes = rows.bytes
        rows.bytes = []
        var widths = self.widths
        self.widths = []
        Self.keep(employee.id, column: 0, &bytes, &widths)
        if employee.designation.isEmpty {
            Self.keep(employee.name, column: 1, &bytes, &widths)
        } else if employee.name.isPrintableASCII && employee.designation.isPrintableASCII {
            // The title without building it: the dash is one column, three bytes.
            let width = employee.name.utf8.count + 3 + employee.designation.utf8.count
            widths[1] = max(widths[1], width)
            Self.appendHeader(width: width, bytes: width + 2, &bytes)
            Self.append(employee.name, &bytes)
            Self.append(Self.separator, &bytes)
            Self.append(employee.designation, &bytes)
        } else {
            Self.keep(employee.title, column: 1, &bytes, &widths)
        }
        Self.keep(employee.company?.name ?? "", column: 2, &bytes, &widths)
        widths[3] = max(widths[3], decimalWidth(employee.salary))
        withUnsafeBytes(of: employee.salary.littleEndian) { bytes.append(contentsOf: $0) }
        rows.bytes = bytes
        self.widths = widths
        try rows.appended()
    }

    /// Writes the header and every row kept, or `(no employees)` when there are none.
    /// - Throws: ``EmployeesError/output(_:)``.
    func finish() throws(EmployeesError) {
        guard count > 0 else { return try output.writeLine("(no employees)") }
        let widths = self.widths
        for (column, title) in Self.header.enumerated() {
            if column == 3 {
                try output.write(spaces: widths[3] - title.displayWidth)
                try output.writeLine(title)
            } else {
                try output.write(title)
                try output.write(spaces: widths[column] - title.displayWidth + 2)
            }
        }
        let output = self.output
        try rows.readBack { bytes throws(EmployeesError) in
            var reader = RowReader(bytes: bytes)
            var consumed = 0
            while let row = reader.next() {
                for column in 0..<3 {
                    let cell = row.cell(column)
                    try output.write(cell.bytes)
                    try output.write(spaces: widths[column] - cell.width + 2)
                }
                try output.write(spaces: widths[3] - decimalWidth(row.salary))
                try output.write(decimal: row.salary)
                try output.write(byte: UInt8(ascii: "\n"))
                consumed = reader.offset
            }
            return consumed
        }
    }

    /// Keeps `text` as the cell of `column`, in its displayable form.
    private static func keep(
        _ text: String, column: Int, _ bytes: inout [UInt8], _ widths: inout [Int]
    ) {
        if text.isPrintableASCII {
            let count = text.utf8.count
            widths[column] = max(widths[column], count)
            appendHeader(width: count, bytes: count, &bytes)
            append(text, &bytes)
        } else {
            let shown = text.displayable
            let width = shown.displayWidth
            widths[column] = max(widths[column], width)
            appendHeader(width: width, bytes: shown.utf8.count, &bytes)
            append(shown, &bytes)
        }
    }

    private static func appendHeader(width: Int, bytes count: Int, _ bytes: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(width).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(count).littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func append(_ text: String, _ bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }
}

/// Reads back the rows ``EmployeeTable`` kept: per cell a width and a length (32 bits each,
/// little-endian) and the bytes, three cells, then the salary (64 bits).
private struct RowReader {
    struct Cell {
        var width: Int
        var bytes: UnsafeRawBufferPointer
    }

    struct Row {
        var cells: (Cell, Cell, Cell)
        var salary: Int64

        func cell(_ column: Int) -> Cell {
            column == 0 ? cells.0 : column == 1 ? cells.1 : cells.2
        }
    }

    let bytes: UnsafeRawBufferPointer
    /// Where the next row starts.
    private(set) var offset = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The next whole row, or `nil` if the bytes end before one does.
    mutating func next() -> Row? {
        var position = offset
        guard let id = cell(&position), let title = cell(&position),
            let company = cell(&position), position + 8 <= bytes.count
        else { return nil }
        let salary = bytes.loadUnaligned(fromByteOffset: position, as: Int64.self)
        offset = position + 8
        return Row(cells: (id, title, company), salary: Int64(littleEndian: salary))
    }

    private func cell(_ position: inout Int) -> Cell? {
        guard position + 8 <= bytes.count else { return nil }
        let width = bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)
        let count = Int(
            UInt32(
                littleEndian: bytes.loadUnaligned(
                    fromByteOffset: position + 4, as: UInt32.self)))
        let start = position + 8
        guard start + count <= bytes.count else { return nil }
        position = start + count
        return Cell(
            width: Int(UInt32(littleEndian: width)),
            bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]))
    }
}
