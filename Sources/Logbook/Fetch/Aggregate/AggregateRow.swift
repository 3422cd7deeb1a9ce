import Foundation

/// One group of an aggregate: its key values, its object count and the values computed for it.
///
/// Read it by column name (`row["sum_salary"]`), by position (``group``, ``values``), or — for
/// a typed aggregate — by key path: `row[\Employee.designation]`, `row.sum(\Employee.salary)`.
/// A value type, `Sendable`.
public struct AggregateRow: Sendable, Hashable, CustomStringConvertible {
    /// The group's key values, one per group key in order (empty without group keys).
    public let group: [AttributeValue]
    /// The number of objects in the group.
    public let count: Int
    /// The computed values, one per function in order.
    public let values: [AttributeValue]
    /// What the columns are.
    let columns: AggregateColumns

    /// The column names: the group keys, `count`, then the functions (`sum_salary`).
    public var columnNames: [String] { columns.names }

    /// The value of the column `name` (a group key, `count`, or a function such as
    /// `sum_salary`), or `nil` if there is no such column.
    public subscript(column name: String) -> AttributeValue? {
        guard let i = columns.names.firstIndex(of: name) else { return nil }
        if i < group.count { return group[i] }
        if i == group.count { return .integer(Int64(count)) }
        return values[i - group.count - 1]
    }

    /// The group's value of the key `keyPath` (one of the descriptor's `groupBy`), or `nil`
    /// if it is not a group key of this aggregate.
    public subscript<Model: PersistentModel, Value: AttributeStorable>(
        _ keyPath: KeyPath<Model, Value>
    ) -> Value? {
        guard let i = columns.groupKeyPaths.firstIndex(of: keyPath) else { return nil }
        return Value(attributeValue: group[i])
    }

    /// The value computed by `function` (one of the descriptor's `functions`), or `nil` if
    /// this aggregate does not compute it.
    public func value<Model: PersistentModel>(_ function: AggregateFunction<Model>)
        -> AttributeValue?
    {
        guard
            let i = columns.functions.firstIndex(where: {
                $0.operation == function.operation && $0.keyPath == function.keyPath
            })
        else { return nil }
        return values[i]
    }

    /// The sum of `keyPath` (in its own type), if the aggregate computes it.
    public func sum<Model: PersistentModel, Value: AttributeStorable>(
        _ keyPath: KeyPath<Model, Value>
    ) -> Value? {
        value(.sum(keyPath)).flatMap { Value(attributeValue: $0) }
    }

    /// The mean of a number attribute `keyPath` as a `Double`, if the aggregate computes it
    /// and the group has a value (a `Decimal`'s mean rounded to a double: ``value(_:)`` has it
    /// exactly).
    public func average<Model: PersistentModel, Value>(_ keyPath: KeyPath<Model, Value>)
        -> Double?
    {
        switch value(.average(keyPath)) {
        case .double(let mean)?: return mean
        case .integer(let mean)?: return Double(mean)
        case .decimal(let mean)?: return NSDecimalNumber(decimal: mean).doubleValue
        default: return nil
        }
    }

    /// The smallest value of `keyPath`, if the aggregate computes it and the group has one.
    public func minimum<Model: PersistentModel, Value: AttributeStorable>(
        _ keyPath: KeyPath<Model, Value>
    ) -> Value? {
        value(.minimum(keyPath)).flatMap { $0.isNull ? nil : Value(attributeValue: $0) }
    }

    /// The largest value of `keyPath`, if the aggregate computes it and the group has one.
    public func maximum<Model: PersistentModel, Value: AttributeStorable>(
        _ keyPath: KeyPath<Model, Value>
    ) -> Value? {
        value(.maximum(keyPath)).flatMap { $0.isNull ? nil : Value(attributeValue: $0) }
    }

    /// `designation="Engineer" count=3 sum_salary=6000000`.
    public var description: String {
        zip(columns.names, group + [.integer(Int64(count))] + values).map { "\($0)=\($1)" }
            .joined(separator: " ")
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.group == b.group && a.count == b.count && a.values == b.values
            && a.columns.names == b.columns.names
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(group)
        hasher.combine(count)
        hasher.combine(values)
    }
}

/// The columns of an aggregate's rows, shared by all of them: names, and for a typed aggregate
/// the key paths of its group keys and functions.
// @unchecked: immutable; key paths are immutable values.
final class AggregateColumns: @unchecked Sendable {
    let names: [String]
    let groupKeyPaths: [AnyKeyPath]
    let functions: [(operation: AggregateOperation, keyPath: AnyKeyPath?)]

    init(
        names: [String], groupKeyPaths: [AnyKeyPath] = [],
        functions: [(operation: AggregateOperation, keyPath: AnyKeyPath?)] = []
    ) {
        self.names = names
        self.groupKeyPaths = groupKeyPaths
        self.functions = functions
    }
}
