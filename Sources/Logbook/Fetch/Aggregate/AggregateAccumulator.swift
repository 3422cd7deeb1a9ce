import Foundation

/// A value as aggregates count and add it: the one place that maps a stored value to a number.
/// A new number type of attributes gets a case here, an arm in ``init(_:)`` and one in
/// ``Accumulator/add(_:_:)``; sums, means and extremes then work for it.
enum AggregateNumber {
    /// Integers, added exactly (128 bits) and compared as integers.
    case integer(Int64)
    /// Doubles and dates (seconds since 2001), added with compensation and compared as
    /// indexes order them (NaN after every number).
    case double(Double)

    /// The number `value` is, or `nil` for a value that is not one (text, `nil`, …).
    @inline(__always)
    init?(_ value: AttributeValue) {
        switch value {
        case .integer(let v): self = .integer(v)
        case .double(let v): self = .double(v)
        case .date(let v): self = .double(v.timeIntervalSinceReferenceDate)
        default: return nil
        }
    }

    /// Whether values of `type` are numbers an aggregate can add up (dates are averaged, not
    /// summed).
    static func canSum(_ type: AttributeType) -> Bool {
        type == .integer || type == .double
    }

    /// Whether values of `type` can be averaged.
    static func canAverage(_ type: AttributeType) -> Bool {
        canSum(type) || type == .date
    }
}

/// The running state of one aggregate function over one group's values. Integers are summed in
/// 128 bits, so a sum overflows only when its result does not fit in 64 (then the result is
/// ``LogbookError/aggregateOverflow(entity:attribute:)``); doubles are summed with Neumaier's
/// compensation, so the order values come in barely changes the sum.
struct Accumulator {
    /// Values seen (not `nil`).
    private(set) var count = 0
    private var integerSum: Int128 = 0
    private var overflowed = false
    private var doubleSum = 0.0
    private var compensation = 0.0
    private var integerExtreme: Int64 = 0
    private var doubleExtreme = 0.0
    /// The extreme of values that are not numbers (or, after a merge, of either kind).
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

    /// Adds a double (or a date's seconds).
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

    /// Adds any value (`nil` is skipped), through ``AggregateNumber`` for numbers.
    mutating func add(_ value: AttributeValue, _ operation: AggregateOperation) {
        if value.isNull { return }
        switch AggregateNumber(value) {
        case .integer(let v)?: add(integer: v, operation)
        case .double(let v)?: add(double: v, operation)
        case nil:
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

    /// The function's value over what was added, as a value of the type it reports: counts
    /// are integers; sums have the attribute's number type; means are doubles (dates for a
    /// date); extremes have the attribute's type. `overflow` is thrown for an integer sum past
    /// 64 bits.
    func result(_ operation: AggregateOperation, type: AttributeType, overflow: LogbookError? = nil)
        throws -> AttributeValue
    {
        switch operation {
        case .count:
            return .integer(Int64(count))
        case .sum:
            if type == .integer {
                guard !overflowed, let sum = Int64(exactly: integerSum) else {
                    throw overflow ?? LogbookError.invalidQuery("an integer sum past 64 bits")
                }
                return .integer(sum)
            }
            return .double(doubleSum + compensation)
        case .average:
            guard count > 0 else { return .null }
            if type == .integer {
                return .double(Double(integerSum) / Double(count))
            }
            let mean = (doubleSum + compensation) / Double(count)
            return type == .date ? .date(Date(timeIntervalSinceReferenceDate: mean)) : .double(mean)
        case .minimum, .maximum:
            return result(operation, type: type)
        }
    }

    /// The extreme as a value of `type`.
    private func result(_ operation: AggregateOperation, type: AttributeType) -> AttributeValue {
        guard count > 0 else { return .null }
        if !extreme.isNull { return extreme }
        switch type {
        case .integer: return .integer(integerExtreme)
        case .double: return .double(doubleExtreme)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: doubleExtreme))
        default: return extreme
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
