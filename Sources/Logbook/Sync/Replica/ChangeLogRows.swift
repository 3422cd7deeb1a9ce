/// Rows of PostgreSQL's change log (`logbook_sync.changes`) in `COPY`'s text format, which a
/// save's transaction sends in one `COPY … FROM STDIN` instead of a multi-row `INSERT`: the
/// server then parses no SQL per row (parsing, analysing and planning a thousand rows of
/// `ARRAY[…]::text[]` literals cost more than inserting them).
struct ChangeLogRows {
    /// The statement the rows feed; their columns in this order.
    static let copySQL =
        "COPY logbook_sync.changes (position, xact, origin, sequence, echo, target, author, "
        + "entity, id, op, columns, \"values\", stamp) FROM STDIN"

    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    /// Appends one row (`nil`: SQL `NULL`).
    mutating func append(
        position: UInt64, xact: Int64, origin: Int32, sequence: UInt64, echo: Bool,
        target: Int32?, author: String, entity: String?, id: UInt64?, op: Character,
        columns: [String]?, values: [String?]?, stamp: UInt64
    ) {
        number(position)
        tab()
        number(xact)
        tab()
        number(origin)
        tab()
        number(sequence)
        tab()
        bytes.append(echo ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        tab()
        if let target { number(target) } else { null() }
        tab()
        text(author)
        tab()
        if let entity { text(entity) } else { null() }
        tab()
        if let id { number(id) } else { null() }
        tab()
        text(String(op))
        tab()
        if let columns { array(columns.map { Optional($0) }) } else { null() }
        tab()
        if let values { array(values) } else { null() }
        tab()
        number(stamp)
        bytes.append(UInt8(ascii: "\n"))
        count += 1
    }

    private mutating func tab() { bytes.append(UInt8(ascii: "\t")) }

    private mutating func null() {
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
    }

    private mutating func number<N: BinaryInteger>(_ value: N) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A field's text, with COPY's escapes for the backslash and the bytes that end fields
    /// and rows.
    private mutating func text(_ value: String) {
        for byte in value.utf8 { escaped(byte) }
    }

    private mutating func escaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        default: bytes.append(byte)
        }
    }

    /// A one-dimensional `text[]` literal (`{"a",NULL}`: every element quoted, `"` and `\`
    /// backslash-escaped), then COPY-escaped as a field.
    private mutating func array(_ items: [String?]) {
        bytes.append(UInt8(ascii: "{"))
        for (i, item) in items.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let item else {
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            bytes.append(UInt8(ascii: "\""))
            for byte in item.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    escaped(UInt8(ascii: "\\"))
                }
                escaped(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
