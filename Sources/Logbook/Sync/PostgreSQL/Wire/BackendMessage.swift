/// One message from the server: its type byte and its body (without the length word), with
/// readers that check every length against what is left and throw
/// ``PostgreSQLError/protocolViolation(reason:)`` instead of reading past the end.
struct BackendMessage {
    let type: UInt8
    let body: [UInt8]
    private(set) var offset = 0

    init(type: UInt8, body: [UInt8]) {
        self.type = type
        self.body = body
    }

    /// The type as a character, for errors.
    var name: String { "'\(Character(Unicode.Scalar(type)))'" }

    var remaining: Int { body.count - offset }

    mutating func byte() throws -> UInt8 {
        guard offset < body.count else { throw truncated() }
        defer { offset += 1 }
        return body[offset]
    }

    mutating func int16() throws -> Int16 {
        guard remaining >= 2 else { throw truncated() }
        defer { offset += 2 }
        return Int16(bitPattern: UInt16(body[offset]) << 8 | UInt16(body[offset + 1]))
    }

    mutating func int32() throws -> Int32 {
        guard remaining >= 4 else { throw truncated() }
        defer { offset += 4 }
        return Int32(bitPattern: Self.uint32(body, at: offset))
    }

    /// A count (an Int16 that may not be negative), each of whose items takes at least
    /// `itemBytes` of what is left: so a hostile count cannot make a caller reserve memory.
    mutating func count(itemBytes: Int) throws -> Int {
        let count = Int(try int16())
        guard count >= 0, count * itemBytes <= remaining else {
            throw violation("a count of \(count) in a \(name) message does not fit its length")
        }
        return count
    }

    /// A NUL-terminated string.
    mutating func string() throws -> String {
        guard let end = body[offset...].firstIndex(of: 0) else { throw truncated() }
        defer { offset = end + 1 }
        return String(decoding: body[offset..<end], as: UTF8.self)
    }

    /// `count` bytes.
    mutating func bytes(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else { throw truncated() }
        defer { offset += count }
        return body[offset..<offset + count]
    }

    /// The rest of the body.
    mutating func rest() -> ArraySlice<UInt8> {
        defer { offset = body.count }
        return body[offset...]
    }

    static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    private func truncated() -> LogbookError {
        violation("a \(name) message ends early")
    }

    func violation(_ reason: String) -> LogbookError {
        .postgreSQL(.protocolViolation(reason: reason))
    }

    // MARK: Messages several requests share

    /// ErrorResponse or NoticeResponse: the fields, by their one-letter codes.
    func serverError() throws -> PostgreSQLServerError {
        var message = self
        var fields: [UInt8: String] = [:]
        while true {
            let code = try message.byte()
            if code == 0 { break }
            fields[code] = try message.string()
        }
        func field(_ code: Character) -> String? { fields[code.asciiValue ?? 0] }
        return PostgreSQLServerError(
            sqlState: field("C") ?? "XX000", severity: field("V") ?? field("S") ?? "ERROR",
            message: field("M") ?? "(no message)", detail: field("D"), hint: field("H"),
            position: field("P").flatMap { Int($0) }, schema: field("s"), table: field("t"),
            column: field("c"), dataType: field("d"), constraint: field("n"))
    }

    /// RowDescription: the columns of the rows that follow.
    func columns() throws -> [PostgreSQLColumn] {
        var message = self
        let count = try message.count(itemBytes: 19)
        var columns: [PostgreSQLColumn] = []
        columns.reserveCapacity(count)
        for _ in 0..<count {
            let name = try message.string()
            let table = UInt32(bitPattern: try message.int32())
            let number = try message.int16()
            let type = UInt32(bitPattern: try message.int32())
            let size = try message.int16()
            let modifier = try message.int32()
            let format = try message.int16()
            columns.append(
                PostgreSQLColumn(
                    name: name, tableOID: table, columnNumber: number, typeOID: type,
                    typeSize: size, typeModifier: modifier,
                    format: format == 1 ? .binary : .text))
        }
        return columns
    }

    /// DataRow: a row of `columns`.
    func row(_ columns: PostgreSQLRow.Columns) throws -> PostgreSQLRow {
        var message = self
        let count = try message.count(itemBytes: 4)
        guard count == columns.list.count else {
            throw violation(
                "a row of \(count) values where \(columns.list.count) columns were described")
        }
        var fields: [PostgreSQLRow.Field] = []
        fields.reserveCapacity(count)
        for _ in 0..<count {
            let length = try message.int32()
            if length < 0 {
                fields.append(PostgreSQLRow.Field(start: 0, length: -1))
                continue
            }
            let start = message.offset
            _ = try message.bytes(Int(length))
            fields.append(PostgreSQLRow.Field(start: Int32(start), length: length))
        }
        return PostgreSQLRow(columns: columns, bytes: body, fields: fields)
    }

    /// NotificationResponse.
    func notification() throws -> PostgreSQLNotification {
        var message = self
        let processID = try message.int32()
        let channel = try message.string()
        let payload = try message.string()
        return PostgreSQLNotification(processID: processID, channel: channel, payload: payload)
    }
}
