import Logbook

/// `list`'s table for people, written while the employees stream past: id, "name — designation",
/// company, salary flush right, in columns two spaces apart and as wide as their widest cell
/// (in terminal columns, so wide characters keep them aligned).
///
/// The widths depend on every row, so each row is measured as it comes and kept, compactly, in
/// a ``SpillBuffer`` (which moves to a temporary file past a few MiB); ``finish()`` writes the
/// header and the rows, padded. Memory does not grow with the number of rows. Not thread-safe.
final class EmployeeTable {
    static let header = ["ID", "NAME — DESIGNATION", "COMPANY", "SALARY"]
    static let minimumWidths = [2, 20, 7, 6]
    private static let separator = " — "

    private let output: BufferedOutput
    private let rows: SpillBuffer
    /// The columns' widths so far.
    private var widths: (Int, Int, Int, Int)
    private(set) var count = 0

    /// A table written to `output`; `memoryLimit` bounds the rows kept in memory.
    init(output: BufferedOutput, memoryLimit: Int = 4 << 20) {
        self.output = output
        rows = SpillBuffer(limit: memoryLimit)
        let w = zip(Self.header, Self.minimumWidths).map { max($0.displayWidth, $1) }
        widths = (w[0], w[1], w[2], w[3])
    }

    /// Measures and keeps one row.
    /// - Throws: ``EmployeesError/output(_:)`` if the rows cannot be kept.
    func add(_ employee: EmployeeRecord) throws(EmployeesError) {
        count += 1
        if try addPrintableASCII(employee) { return }
        // Some text is not printable ASCII: each cell in its displayable form, measured.
        let id = Self.shown(employee.id)
        let title: (text: String, width: Int) =
            employee.designation.isEmpty
            ? Self.shown(employee.name)
            : employee.name.isPrintableASCII && employee.designation.isPrintableASCII
                ? (employee.title, employee.title.utf8.count - 2) : Self.shown(employee.title)
        let company = Self.shown(employee.company?.name ?? "")
        var widths = self.widths
        widths.0 = max(widths.0, id.width)
        widths.1 = max(widths.1, title.width)
        widths.2 = max(widths.2, company.width)
        widths.3 = max(widths.3, decimalWidth(employee.salary))
        self.widths = widths
        let size = 32 + id.text.utf8.count + title.text.utf8.count + company.text.utf8.count
        let start = try rows.reserve(size)
        var at = 0
        for cell in [id, title, company] {
            var text = cell.text
            text.withUTF8 { Self.putCell(start, &at, width: cell.width, $0, nil, nil) }
        }
        start.storeBytes(of: employee.salary.littleEndian, toByteOffset: at, as: Int64.self)
        rows.appended(at + 8)
    }

    /// Keeps a row whose cells are all printable ASCII (each its own displayable form, one
    /// column a byte); `false`, keeping nothing, if one is not.
    private func addPrintableASCII(_ employee: EmployeeRecord) throws(EmployeesError) -> Bool {
        var (id, name, designation) = (employee.id, employee.name, employee.designation)
        var company = employee.company?.name ?? ""
        let size =
            37 + id.utf8.count + name.utf8.count + designation.utf8.count + company.utf8.count
        let start = try rows.reserve(size)
        var widths = self.widths
        let written = id.withUTF8 { id in
            name.withUTF8 { name in
                designation.withUTF8 { designation in
                    company.withUTF8 { company -> Int in
                        guard
                            ASCIIScan.isPrintableASCII(id) && ASCIIScan.isPrintableASCII(name)
                                && ASCIIScan.isPrintableASCII(designation)
                                && ASCIIScan.isPrintableASCII(company)
                        else { return 0 }
                        var at = 0
                        widths.0 = max(widths.0, id.count)
                        Self.putCell(start, &at, width: id.count, id, nil, nil)
                        if designation.isEmpty {
                            widths.1 = max(widths.1, name.count)
                            Self.putCell(start, &at, width: name.count, name, nil, nil)
                        } else {
                            // The dash is one column, three bytes.
                            let width = name.count + 3 + designation.count
                            widths.1 = max(widths.1, width)
                            Self.putCell(start, &at, width: width, name, Self.dash, designation)
                        }
                        widths.2 = max(widths.2, company.count)
                        Self.putCell(start, &at, width: company.count, company, nil, nil)
                        start.storeBytes(
                            of: employee.salary.littleEndian, toByteOffset: at, as: Int64.self)
                        return at + 8
                    }
                }
            }
        }
        guard written > 0 else { return false }
        widths.3 = max(widths.3, decimalWidth(employee.salary))
        self.widths = widths
        rows.appended(written)
        return true
    }

    /// Writes the header and every row kept, or `(no employees)` when there are none.
    /// - Throws: ``EmployeesError/output(_:)``.
    func finish() throws(EmployeesError) {
        guard count > 0 else { return try output.writeLine("(no employees)") }
        let widths = [self.widths.0, self.widths.1, self.widths.2, self.widths.3]
        try Self.writeHeader(widths, to: output)
        // Rows are laid out in a buffer of their own and handed on a buffer at a time.
        let capacity = 64 << 10
        let lines = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { lines.deallocate() }
        var filled = 0
        let output = self.output
        let (w0, w1, w2, w3) = self.widths
        try rows.readBack { bytes throws(EmployeesError) in
            var reader = RowReader(bytes: bytes)
            var consumed = 0
            while let row = reader.next() {
                let cells = row.cells
                let size =
                    cells.0.bytes.count + cells.1.bytes.count + cells.2.bytes.count
                    + (w0 - cells.0.width) + (w1 - cells.1.width) + (w2 - cells.2.width) + 6
                    + w3 + 1
                if filled + size > capacity {
                    try output.write(UnsafeRawBufferPointer(start: lines, count: filled))
                    filled = 0
                }
                if size > capacity {
                    try Self.writeRow(row, widths, to: output)
                } else {
                    var at = filled
                    Self.putPadded(lines, &at, cells.0, width: w0)
                    Self.putPadded(lines, &at, cells.1, width: w1)
                    Self.putPadded(lines, &at, cells.2, width: w2)
                    let digits = decimalWidth(row.salary)
                    Self.putSpaces(lines + at, w3 - digits)
                    Self.putDecimal(lines + at + w3 - digits, row.salary, digits: digits)
                    lines.storeBytes(of: UInt8(ascii: "\n"), toByteOffset: at + w3, as: UInt8.self)
                    filled = at + w3 + 1
                }
                consumed = reader.offset
            }
            return consumed
        }
        try output.write(UnsafeRawBufferPointer(start: lines, count: filled))
    }

    /// The header line, for columns `widths` wide.
    static func writeHeader(_ widths: [Int], to output: BufferedOutput) throws(EmployeesError) {
        for (column, title) in header.enumerated() {
            if column == 3 {
                try output.write(spaces: widths[3] - title.displayWidth)
                try output.writeLine(title)
            } else {
                try output.write(title)
                try output.write(spaces: widths[column] - title.displayWidth + 2)
            }
        }
    }

    /// A row too wide for the line buffer, written a piece at a time.
    private static func writeRow(_ row: RowReader.Row, _ widths: [Int], to output: BufferedOutput)
        throws(EmployeesError)
    {
        for column in 0..<3 {
            let cell = row.cell(column)
            try output.write(cell.bytes)
            try output.write(spaces: widths[column] - cell.width + 2)
        }
        try output.write(spaces: widths[3] - decimalWidth(row.salary))
        try output.write(decimal: row.salary)
        try output.write(byte: UInt8(ascii: "\n"))
    }

    static let dash = Array(separator.utf8)

    /// `text` in its displayable form and its width in columns.
    static func shown(_ text: String) -> (text: String, width: Int) {
        if text.isPrintableASCII { return (text, text.utf8.count) }
        let shown = text.displayable
        return (shown, shown.displayWidth)
    }

    /// Writes a cell at `start + at`: its width and length (32 bits each, little-endian), then
    /// its bytes, `first`, `middle` and `last` (`middle` only with `last`).
    @inline(__always)
    private static func putCell(
        _ start: UnsafeMutableRawPointer, _ at: inout Int, width: Int,
        _ first: UnsafeBufferPointer<UInt8>, _ middle: [UInt8]?,
        _ last: UnsafeBufferPointer<UInt8>?
    ) {
        var length = first.count
        if let middle, let last { length += middle.count + last.count }
        start.storeBytes(of: UInt32(width).littleEndian, toByteOffset: at, as: UInt32.self)
        start.storeBytes(of: UInt32(length).littleEndian, toByteOffset: at + 4, as: UInt32.self)
        at += 8
        put(start, &at, UnsafeRawBufferPointer(first))
        if let middle, let last {
            middle.withUnsafeBytes { put(start, &at, $0) }
            put(start, &at, UnsafeRawBufferPointer(last))
        }
    }

    @inline(__always)
    static func put(
        _ start: UnsafeMutableRawPointer, _ at: inout Int, _ bytes: UnsafeRawBufferPointer
    ) {
        if let base = bytes.baseAddress, bytes.count > 0 {
            (start + at).copyMemory(from: base, byteCount: bytes.count)
        }
        at += bytes.count
    }

    /// The cell's bytes and the spaces that pad it to `width`, plus the two between columns.
    @inline(__always)
    static func putPadded(
        _ start: UnsafeMutableRawPointer, _ at: inout Int, _ cell: TableCell, width: Int
    ) {
        put(start, &at, cell.bytes)
        let spaces = width - cell.width + 2
        putSpaces(start + at, spaces)
        at += spaces
    }

    @inline(__always)
    static func putSpaces(_ start: UnsafeMutableRawPointer, _ count: Int) {
        if count > 0 { start.initializeMemory(as: UInt8.self, repeating: 0x20, count: count) }
    }

    /// The `digits` decimal digits of `value` (and its sign) at `start`.
    @inline(__always)
    static func putDecimal(_ start: UnsafeMutableRawPointer, _ value: Int64, digits: Int) {
        putDigits(start, value.magnitude, digits: digits)
        if value < 0 { start.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 0, as: UInt8.self) }
    }

    /// The decimal digits of `value`, ending `digits` bytes after `start`.
    @inline(__always)
    static func putDigits(_ start: UnsafeMutableRawPointer, _ value: UInt64, digits: Int) {
        var rest = value
        var position = digits
        repeat {
            position -= 1
            start.storeBytes(
                of: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10),
                toByteOffset: position, as: UInt8.self)
            rest /= 10
        } while rest > 0
    }
}

/// A cell of the table: its text's bytes and its width in columns.
struct TableCell {
    var width: Int
    var bytes: UnsafeRawBufferPointer
}

/// Reads back the rows ``EmployeeTable`` kept: per cell a width and a length (32 bits each,
/// little-endian) and the bytes, three cells, then the salary (64 bits).
private struct RowReader {
    typealias Cell = TableCell

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
