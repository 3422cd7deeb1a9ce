import Foundation

/// The running state of one aggregate function over one group's values (see
/// ``AggregateNumber`` for what is added how). Integers are summed in 128 bits, so a sum
/// overflows only when its result does not fit its type (then the result is
/// ``LogbookError/aggregateOverflow(entity:attribute:)``); doubles are summed with Neumaier's
/// compensation, so the order values come in barely changes the sum; decimals are summed as
/// decimals.
struct Accumulator {
    /// Values seen (not `nil`).
    private(set) var count = 0
    private var integerSum: Int128 = 0
    private var overflowed = false
    private var doubleSum = 0.0
    private var compensation = 0.0
    private var integerExtreme: Int64 = 0
    private var doubleExtreme = 0.0
    private var decimals = DecimalSum()
    /// The extreme of values that are neither integers nor doubles (or, after a merge, of
    /// either kind).
    private var extreme: AttributeValue = .null

    init() {}

    /// An accumulator that has counted `count` values (a count an index answers).
    init(count: Int) { self.count = count }

    /// One that has seen `value` `count` times (a run of equal index entries), for a count, a
    /// minimum or a maximum.
    init(value: AttributeValue, count: Int, _ operation: AggregateOperation) {
        add(value, operation)
        self.count = count
    }

    /// Adds an integer value.
    @inline(__always)
    mutating func add(integer v: Int64, _ operation: AggregateOperation) {
        count &+= 1
        switch operation {
        case .count:
            break
        case .sum, .average:
            let (sum, overflow) = integerSum.addingReportingOverflow(Int128(v))
            integerSum = sum
            if overflow { overflowed = true }
        case .minimum:
            if count == 1 || v < integerExtreme { integerExtreme = v }
        case .maximum:
            if count == 1 || v > integerExtreme { integerExtreme = v }
        }
    }

    /// Adds a double (or a date's seconds, or a float).
    @inline(__always)
    mutating func add(double v: Double, _ operation: AggregateOperation) {
        count &+= 1
        switch operation {
        case .count:
            break
        case .sum, .average:
            accumulate(v)
        case .minimum:
            if count == 1 || Self.less(v, doubleExtreme) { doubleExtreme = v }
        case .maximum:
            if count == 1 || Self.less(doubleExtreme, v) { doubleExtreme = v }
        }
    }

    /// Adds `v` to the double sum. Neumaier: the low-order bits each addition loses are kept
    /// apart and added back at the end.
    @inline(__always)
    private mutating func accumulate(_ v: Double) {
        let t = doubleSum + v
        if abs(doubleSum) >= abs(v) {
            compensation += (doubleSum - t) + v
        } else {
            compensation += (v - t) + doubleSum
        }
        doubleSum = t
    }

    /// Adds any value (`nil` is skipped): integers and doubles as above, `UInt64` and
    /// `Decimal` sums exactly, other extremes in the order of ``AttributeValue/compare(_:_:)``.
    mutating func add(_ value: AttributeValue, _ operation: AggregateOperation) {
        switch value {
        case .null: return
        case .integer(let v): return add(integer: v, operation)
        case .double(let v): return add(double: v, operation)
        case .float(let v): return add(double: Double(v), operation)
        case .date(let v): return add(double: v.timeIntervalSinceReferenceDate, operation)
        case .unsigned(let v) where operation == .sum || operation == .average:
            count &+= 1
            integerSum &+= Int128(v)  // Below 2^127 for any count of UInt64s that fits in memory.
            return
        case .decimal(let v) where operation == .sum || operation == .average:
            count &+= 1
            decimals.add(v)
            return
        default: break
        }
        count &+= 1
        switch operation {
        case .minimum:
            if count == 1 || AttributeValue.compare(value, extreme) == .orderedAscending {
                extreme = value
            }
        case .maximum:
            if count == 1 || AttributeValue.compare(value, extreme) == .orderedDescending {
                extreme = value
            }
        case .count, .sum, .average:
            break
        }
    }

    /// Takes in what `other` accumulated over other values of the same attribute.
    mutating func merge(_ other: Accumulator, _ operation: AggregateOperation, type: AttributeType)
    {
        guard other.count > 0 else { return }
        guard count > 0 else {
            self = other
            return
        }
        switch operation {
        case .count:
            count += other.count
        case .sum, .average:
            count += other.count
            let (sum, overflow) = integerSum.addingReportingOverflow(other.integerSum)
            integerSum = sum
            overflowed = overflowed || other.overflowed || overflow
            accumulate(other.doubleSum)
            compensation += other.compensation
            decimals.add(other.decimals)
        case .minimum, .maximum:
            let mine = result(operation, type: type)
            let theirs = other.result(operation, type: type)
            var merged = Accumulator()
            merged.add(mine, operation)
            merged.add(theirs, operation)
            let total = count + other.count
            self = merged
            count = total
        }
    }

    /// The function's value over what was added, as a value of the type it reports (see
    /// ``AggregateNumber``): counts are integers; sums have the attribute's number type;
    /// means are doubles (dates for a date, decimals for a decimal); extremes have the
    /// attribute's type. `overflow` is thrown for a sum that does not fit its type.
    func result(_ operation: AggregateOperation, type: AttributeType, overflow: LogbookError? = nil)
        throws -> AttributeValue
    {
        let overflow = overflow ?? LogbookError.invalidQuery("a sum that does not fit its type")
        switch operation {
        case .count:
            return .integer(Int64(count))
        case .sum:
            switch type {
            case .uint64:
                guard let sum = UInt64(exactly: integerSum) else { throw overflow }
                return .unsigned(sum)
            case .decimal:
                guard decimals.isExact else { throw overflow }
                return .decimal(decimals.sum)
            case .float:
                return .float(Float(doubleSum + compensation))
            case .double:
                return .double(doubleSum + compensation)
            default:
                guard !overflowed, let sum = Int64(exactly: integerSum) else { throw overflow }
                return .integer(sum)
            }
        case .average:
            guard count > 0 else { return .null }
            switch type {
            case .decimal:
                guard let mean = decimals.mean(count) else { throw overflow }
                return .decimal(mean)
            case .date:
                let mean = (doubleSum + compensation) / Double(count)
                return .date(Date(timeIntervalSinceReferenceDate: mean))
            case .double, .float:
                return .double((doubleSum + compensation) / Double(count))
            default:
                return .double(Double(integerSum) / Double(count))
            }
        case .minimum, .maximum:
            return result(operation, type: type)
        }
    }

    /// The extreme as a value of `type`.
    private func result(_ operation: AggregateOperation, type: AttributeType) -> AttributeValue {
        guard count > 0 else { return .null }
        if !extreme.isNull { return extreme }
        switch type {
        case .double: return .double(doubleExtreme)
        case .float: return .float(Float(doubleExtreme))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: doubleExtreme))
        default:
            return AggregateNumber.isSignedStorage(type) ? .integer(integerExtreme) : extreme
        }
    }

    /// The order of indexes: NaN after every number.
    @inline(__always)
    private static func less(_ a: Double, _ b: Double) -> Bool {
        if a.isNaN { return false }
        if b.isNaN { return true }
        return a < b
    }
}

/// A sum of decimals, added as decimals (never through a double), that knows whether it is
/// exact: a sum Decimal's 38 digits cannot hold is reported, not rounded. A NaN makes the sum
/// NaN, as it does a double sum.
struct DecimalSum {
    private(set) var sum = Decimal(0)
    /// Whether a sum lost digits (it is rounded).
    private var inexact = false
    /// Whether a sum went past Decimal's range (it is meaningless).
    private var overflowed = false

    /// Whether ``sum`` is the exact sum.
    var isExact: Bool { !inexact && !overflowed }

    mutating func add(_ value: Decimal) {
        if sum.isNaN { return }
        if value.isNaN {
            sum = .nan
            return
        }
        var a = sum
        var b = value
        switch NSDecimalAdd(&sum, &a, &b, .plain) {
        case .noError: break
        case .lossOfPrecision: inexact = true
        default: overflowed = true
        }
    }

    mutating func add(_ other: DecimalSum) {
        add(other.sum)
        inexact = inexact || other.inexact
        overflowed = overflowed || other.overflowed
    }

    /// The mean of `count` values that add up to ``sum`` (rounded to Decimal's digits), or
    /// `nil` when the sum overflowed.
    func mean(_ count: Int) -> Decimal? {
        if overflowed { return nil }
        if sum.isNaN { return .nan }
        var result = Decimal()
        var a = sum
        var b = Decimal(count)
        switch NSDecimalDivide(&result, &a, &b, .plain) {
        case .noError, .lossOfPrecision: return result
        default: return nil
        }
    }
}
