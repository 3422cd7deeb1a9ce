/// Small pieces of SQL text the replica writes and reads: literals of its own values, and
/// PostgreSQL's text form of a one-dimensional array.
enum SyncSQL {
    /// A single-quoted string literal (standard-conforming strings: only quotes are doubled).
    static func literal(_ text: String) -> String {
        var out: [UInt8] = []
        TextRendering.appendSQLString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `ARRAY['a', NULL, …]::text[]` (`'{}'::text[]` when empty).
    static func textArray(_ items: [String?]) -> String {
        guard !items.isEmpty else { return "'{}'::text[]" }
        return "ARRAY[" + items.map { $0.map(literal) ?? "NULL" }.joined(separator: ", ")
            + "]::text[]"
    }

    /// `ARRAY[1, NULL, …]::bigint[]`, or of `type` (`'{}'` when empty).
    static func numberArray<N: BinaryInteger>(_ items: [N?], type: String = "bigint") -> String {
        guard !items.isEmpty else { return "'{}'::\(type)[]" }
        return "ARRAY[" + items.map { $0.map { String($0) } ?? "NULL" }.joined(separator: ", ")
            + "]::\(type)[]"
    }

    /// Whether an unquoted array element is `NULL` (in any case).
    private static func isNull(_ element: ArraySlice<UInt8>) -> Bool {
        element.count == 4
            && zip(element, "NULL".utf8).allSatisfy { $0 & 0xDF == $1 }
    }

    /// The elements of a one-dimensional array in PostgreSQL's text output (`{a,"b c",NULL}`),
    /// `nil` for each `NULL`; `nil` if `text` is not such an array.
    static func parseArray(_ text: String) -> [String?]? {
        var bytes = Array(text.utf8)[...]
        var items: [String?] = []
        // An array that does not start at 1 is written with its bounds: `[2:3]={a,b}`.
        if bytes.first == UInt8(ascii: "["), let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
            let bounds = String(decoding: bytes[bytes.startIndex + 1..<equals], as: UTF8.self)
            guard bounds.hasSuffix("]"), let lower = Int(bounds.prefix { $0 != ":" }),
                lower >= 1, lower <= 1 << 20
            else { return nil }
            items = Array(repeating: nil, count: lower - 1)
            bytes = bytes[(equals + 1)...]
        }
        guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else {
            return nil
        }
        bytes = bytes.dropFirst().dropLast()
        if bytes.isEmpty { return items }
        var i = bytes.startIndex
        while true {
            if bytes[i] == UInt8(ascii: "\"") {
                var element: [UInt8] = []
                i += 1
                while true {
                    guard i < bytes.endIndex else { return nil }
                    let byte = bytes[i]
                    if byte == UInt8(ascii: "\\") {
                        i += 1
                        guard i < bytes.endIndex else { return nil }
                        element.append(bytes[i])
                    } else if byte == UInt8(ascii: "\"") {
                        i += 1
                        break
                    } else {
                        element.append(byte)
                    }
                    i += 1
                }
                items.append(String(decoding: element, as: UTF8.self))
            } else {
                var end = i
                while end < bytes.endIndex && bytes[end] != UInt8(ascii: ",") { end += 1 }
                let element = bytes[i..<end]
                items.append(
                    isNull(element) ? nil : String(decoding: element, as: UTF8.self))
                i = end
            }
            guard i < bytes.endIndex else { return items }
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i += 1
            guard i < bytes.endIndex else { return nil }
        }
    }
}
