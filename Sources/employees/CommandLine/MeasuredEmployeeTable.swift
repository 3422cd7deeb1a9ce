import Logbook

/// `list`'s table, laid out as ``EmployeeTable`` lays it out, for rows that can be read twice:
/// ``measure(_:company:)`` each row of a first pass (in any order), then ``writeHeader()``, then
/// ``write(_:company:)`` each row of a second pass in the order listed, then ``finish()``.
///
/// Nothing of the rows is kept between the passes (no spill file, no copy in memory): the
/// second pass pads each row straight into a line buffer that goes to the output 64 KiB at a
/// time. Text read in place is copied as its bytes; only a row with text that is not printable
/// ASCII builds `String`s for its displayable form. Memory: the line buffer and one cell per
/// company, until ``deallocate()``. A struct, so that the loops that fill it make no dynamic
/// exclusivity checks. Both passes must read the same rows. Not thread-safe.
struct MeasuredEmployeeTable {
    typealias Fields = EmployeeRecordReader.TextFields
    /// The link of a company by primary key (`nil` for one that does not exist).
    typealias CompanyLookup = (UInt64) throws(EmployeesError) -> CompanyLink?

    private let output: BufferedOutput
    /// The columns' widths so far.
    private var widths: (Int, Int, Int, Int)
    /// The rows measured.
    private(set) var count = 0
    /// The company cells by company primary key: the shown name's bytes (allocated here) and
    /// width.
    private var companies: [UInt64: TableCell] = [:]
    private static let capacity = 64 << 10
    private let lines: UnsafeMutableRawPointer
    private var filled = 0

    /// A table written to `output`.
    init(output: BufferedOutput) {
        self.output = output
        let w = zip(EmployeeTable.header, EmployeeTable.minimumWidths).map {
            max($0.displayWidth, $1)
        }
        widths = (w[0], w[1], w[2], w[3])
        lines = .allocate(byteCount: Self.capacity, alignment: 16)
    }

    /// Frees the line buffer and the company cells: the last call.
    func deallocate() {
        lines.deallocate()
        for cell in companies.values { cell.bytes.deallocate() }
    }

    /// Measures one row of the first pass.
    /// - Throws: what `company` throws.
    mutating func measure(_ row: Fields, company: CompanyLookup) throws(EmployeesError) {
        count += 1
        var widths = self.widths
        widths.0 = max(widths.0, Self.idPrefix.count + Self.digits(row.primaryKey))
        widths.1 = max(widths.1, Self.withTitle(row) { _, _, width in width })
        if let key = row.company {
            widths.2 = max(widths.2, try companyCell(key, company: company).width)
        }
        widths.3 = max(widths.3, decimalWidth(row.salary))
        self.widths = widths
    }

    /// Writes the header, or `(no employees)` when no row was measured.
    /// - Throws: ``EmployeesError/output(_:)``.
    func writeHeader() throws(EmployeesError) {
        guard count > 0 else { return try output.writeLine("(no employees)") }
        try EmployeeTable.writeHeader([widths.0, widths.1, widths.2, widths.3], to: output)
    }

    /// Writes one row of the second pass, padded to the widths the first pass measured.
    /// - Throws: ``EmployeesError/output(_:)``, what `company` throws.
    mutating func write(_ row: Fields, company lookup: CompanyLookup) throws(EmployeesError) {
        var company = TableCell(width: 0, bytes: UnsafeRawBufferPointer(start: nil, count: 0))
        if let key = row.company { company = try companyCell(key, company: lookup) }
        let widths = self.widths
        let fixed = widths.0 + widths.1 + widths.2 + widths.3 + 7
        try Self.withTitle(row) { first, second, width throws(EmployeesError) in
            let title = first.count + (second.map { $0.count + EmployeeTable.dash.count } ?? 0)
            let size = fixed + title - width + company.bytes.count - company.width
            if filled + size > Self.capacity { try flushLines() }
            if size > Self.capacity {
                // A row wider than the line buffer, laid out in one of its own.
                let line = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
                defer { line.deallocate() }
                var at = 0
                Self.put(line, &at, widths, row, first, second, width, company)
                try output.write(UnsafeRawBufferPointer(start: line, count: at))
            } else {
                Self.put(lines, &filled, widths, row, first, second, width, company)
            }
        }
    }

    /// Hands the last rows to the output.
    /// - Throws: ``EmployeesError/output(_:)``.
    mutating func finish() throws(EmployeesError) { try flushLines() }

    private mutating func flushLines() throws(EmployeesError) {
        guard filled > 0 else { return }
        try output.write(UnsafeRawBufferPointer(start: lines, count: filled))
        filled = 0
    }

    /// Lays out a row at `start + at`: id, title (`first`, then the dash and `second` if any),
    /// company, each padded, and the salary flush right.
    @inline(__always)
    private static func put(
        _ start: UnsafeMutableRawPointer, _ at: inout Int, _ widths: (Int, Int, Int, Int),
        _ row: Fields, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer?,
        _ titleWidth: Int, _ company: TableCell
    ) {
        let (w0, w1, w2, w3) = widths
        let idStart = at
        idPrefix.withUnsafeBytes { EmployeeTable.put(start, &at, $0) }
        let digits = digits(row.primaryKey)
        EmployeeTable.putDigits(start + at, row.primaryKey, digits: digits)
        at += digits
        let idSpaces = w0 - (at - idStart) + 2
        EmployeeTable.putSpaces(start + at, idSpaces)
        at += idSpaces
        EmployeeTable.put(start, &at, first)
        if let second {
            EmployeeTable.dash.withUnsafeBytes { EmployeeTable.put(start, &at, $0) }
            EmployeeTable.put(start, &at, second)
        }
        let titleSpaces = w1 - titleWidth + 2
        EmployeeTable.putSpaces(start + at, titleSpaces)
        at += titleSpaces
        EmployeeTable.putPadded(start, &at, company, width: w2)
        let salaryDigits = decimalWidth(row.salary)
        EmployeeTable.putSpaces(start + at, w3 - salaryDigits)
        EmployeeTable.putDecimal(start + at + w3 - salaryDigits, row.salary, digits: salaryDigits)
        start.storeBytes(of: UInt8(ascii: "\n"), toByteOffset: at + w3, as: UInt8.self)
        at += w3 + 1
    }

    /// The cell of company `key`, made once per company.
    private mutating func companyCell(_ key: UInt64, company lookup: CompanyLookup)
        throws(EmployeesError)
        -> TableCell
    {
        if let known = companies[key] { return known }
        var shown: (text: String, width: Int) = ("", 0)
        if let link = try lookup(key) { shown = EmployeeTable.shown(link.name) }
        let cell = TableCell(width: shown.width, bytes: Self.copy(shown.text))
        companies[key] = cell
        return cell
    }

    /// `text`'s UTF-8 bytes in memory of their own (the caller deallocates it).
    private static func copy(_ text: String) -> UnsafeRawBufferPointer {
        let bytes = UnsafeMutableRawBufferPointer.allocate(
            byteCount: text.utf8.count, alignment: 1)
        _ = bytes.initializeMemory(as: UInt8.self, from: text.utf8)
        return UnsafeRawBufferPointer(bytes)
    }

    /// Calls `body` with the row's title cell: its bytes (`first`, then the dash and `second`
    /// when there is a designation and both are printable ASCII) and its width, as
    /// ``EmployeeTable/add(_:)`` makes it.
    @inline(__always)
    private static func withTitle<Result, Failure>(
        _ row: Fields,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?, Int) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let (name, designation) = (row.name, row.designation)
        if ASCIIScan.isPrintableASCII(name.assumingMemoryBound(to: UInt8.self)),
            ASCIIScan.isPrintableASCII(designation.assumingMemoryBound(to: UInt8.self))
        {
            if designation.isEmpty { return try body(name, nil, name.count) }
            // The dash is one column, three bytes.
            return try body(name, designation, name.count + 3 + designation.count)
        }
        return try withShownTitle(
            String(decoding: name, as: UTF8.self), String(decoding: designation, as: UTF8.self),
            body)
    }

    /// ``withTitle(_:_:)`` of text that is not all printable ASCII.
    @inline(never)
    private static func withShownTitle<Result, Failure>(
        _ name: String, _ designation: String,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?, Int) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let record = EmployeeRecord(id: "", name: name, designation: designation, salary: 0)
        let title: (text: String, width: Int) =
            designation.isEmpty
            ? EmployeeTable.shown(name)
            : name.isPrintableASCII && designation.isPrintableASCII
                ? (record.title, record.title.utf8.count - 2) : EmployeeTable.shown(record.title)
        let bytes = copy(title.text)
        defer { bytes.deallocate() }
        return try body(bytes, nil, title.width)
    }

    private static let idPrefix = Array("\(Employee.entityName)/".utf8)

    /// The number of decimal digits of `value`.
    @inline(__always)
    private static func digits(_ value: UInt64) -> Int {
        var count = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }
}
