import Logbook

extension AttributeValue {
    /// How the value reads in `logbook dump`'s text output: `nil`, strings quoted and escaped as
    /// in JSON, data as `0x` and hex, arrays and composites as JSON, the rest as in CSV (dates
    /// ISO 8601, UUIDs upper case).
    var display: String {
        var bytes: [UInt8] = []
        appendDisplay(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``display`` to `output`.
    func appendDisplay(to output: inout [UInt8]) {
        switch self {
        case .null: output.appendLiteral("nil")
        case .string, .array, .composite: append(as: .json, to: &output)
        case .data:
            output.appendLiteral("0x")
            append(as: .csv, to: &output)
        default: append(as: .csv, to: &output)
        }
    }
}
