import Foundation

/// Which attribute types aggregates add up and average, and how their sums and means are
/// reported: the one place that says what a number is to an aggregate.
///
/// - Integers of every width (`Int8` … `Int64`, `UInt8` … `UInt64`) are added exactly in 128
///   bits; a sum is an `Int64` (a `UInt64` for `UInt64`), the typed overflow error when it does
///   not fit, and a mean is a `Double`.
/// - `Double` and `Float` are added as doubles with compensation; a `Float`'s sum is rounded
///   to a `Float` at the end, a mean is a `Double`.
/// - `Decimal` is added as a decimal, never through a double; a sum Decimal cannot hold
///   exactly is the overflow error, and a mean is a `Decimal` (rounded to its 38 digits).
/// - `Date` is averaged (as seconds since 2001), not summed.
enum AggregateNumber {
    /// Whether values of `type` are ``AttributeValue/integer(_:)`` integers.
    static func isSignedStorage(_ type: AttributeType) -> Bool {
        switch type {
        case .integer, .int8, .int16, .int32, .uint8, .uint16, .uint32: true
        default: false
        }
    }

    /// Whether values of `type` are numbers an aggregate can add up.
    static func canSum(_ type: AttributeType) -> Bool {
        isSignedStorage(type) || type == .uint64 || type == .double || type == .float
            || type == .decimal
    }

    /// Whether values of `type` can be averaged.
    static func canAverage(_ type: AttributeType) -> Bool {
        canSum(type) || type == .date
    }
}
