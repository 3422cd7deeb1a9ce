import Logbook

extension AttributeValue {
    /// How the value reads in `logbook dump`'s text output: `nil`, strings quoted and escaped as
    /// in JSON, data as `0x` and hex, the rest as in CSV (dates ISO 8601, UUIDs upper case).
    var display: String {
        switch self {
        case .null: return "nil"
        case .string: return text(as: .json)
        case .data: return "0x" + text(as: .csv)
        default: return text(as: .csv)
        }
    }
}
