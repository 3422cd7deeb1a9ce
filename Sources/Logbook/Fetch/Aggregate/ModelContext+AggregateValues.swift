import Foundation

extension ModelContext {
    /// The sum of a number attribute over the objects `predicate` selects (all for `nil`), with
    /// pending changes: 0 when there are none. Exact for integers and `Decimal`; a sum that does
    /// not fit in `Value` (an `Int8` attribute's sum past 127, say) is the overflow error.
    ///
    /// ```swift
    /// let payroll = try context.sum(\Employee.salary)                       // Int64
    /// let engineers = try context.sum(\Employee.salary, where: #Predicate { $0.designation == "Engineer" })
    /// ```
    /// - Throws: ``LogbookError/aggregateOverflow(entity:attribute:)`` for a sum that does not
    ///   fit in `Value`; as ``aggregate(_:)-(AggregateDescriptor<Model>)``.
    public func sum<Model: PersistentModel, Value: AttributeStorable>(
        _ keyPath: KeyPath<Model, Value>, where predicate: Predicate<Model>? = nil
    ) throws -> Value {
        try single(.sum(keyPath), predicate, as: Value.self)
    }

    /// The mean of a number attribute over the objects `predicate` selects, or `nil` when none
    /// has a value.
    /// - Throws: as ``aggregate(_:)-(AggregateDescriptor<Model>)``.
    public func average<Model: PersistentModel, Value: AttributeStorable>(
        _ keyPath: KeyPath<Model, Value>, where predicate: Predicate<Model>? = nil
    ) throws -> Double? {
        try single(.average(keyPath), predicate, as: Double?.self)
    }

    /// The mean of a `Decimal` attribute over the objects `predicate` selects, as a decimal
    /// (never through a double; rounded to Decimal's 38 digits), or `nil` when none has a value.
    /// - Throws: as ``aggregate(_:)-(AggregateDescriptor<Model>)``.
    public func average<Model: PersistentModel>(
        _ keyPath: KeyPath<Model, Decimal>, where predicate: Predicate<Model>? = nil
    ) throws -> Decimal? {
        try single(.average(keyPath), predicate, as: Decimal?.self)
    }

    /// The mean of a `Date` attribute over the objects `predicate` selects, or `nil` when none
    /// has a value.
    /// - Throws: as ``aggregate(_:)-(AggregateDescriptor<Model>)``.
    public func average<Model: PersistentModel>(
        _ keyPath: KeyPath<Model, Date>, where predicate: Predicate<Model>? = nil
    ) throws -> Date? {
        try single(.average(keyPath), predicate, as: Date?.self)
    }

    /// The mean of an optional `Date` attribute over the objects `predicate` selects, or `nil`
    /// when none has a value.
    /// - Throws: as ``aggregate(_:)-(AggregateDescriptor<Model>)``.
    public func average<Model: PersistentModel>(
        _ keyPath: KeyPath<Model, Date?>, where predicate: Predicate<Model>? = nil
    ) throws -> Date? {
        try single(.average(keyPath), predicate, as: Date?.self)
    }

    /// The smallest value of an attribute over the objects `predicate` selects, or `nil` when
    /// none has a value. Read from an index without a predicate when the attribute leads one.
    /// - Throws: as ``aggregate(_:)-(AggregateDescriptor<Model>)``.
    public func minimum<Model: PersistentModel, Value: AttributeStorable>(
        _ keyPath: KeyPath<Model, Value>, where predicate: Predicate<Model>? = nil
    ) throws -> Value? {
        if predicate == nil, let value = extremeFromIndex(keyPath, of: Model.self, .minimum),
            let converted = Self.convert(value, to: Value?.self)
        {
            return converted
        }
        return try single(.minimum(keyPath), predicate, as: Value?.self)
    }

    /// The largest value of an attribute over the objects `predicate` selects, or `nil` when
    /// none has a value. Read from an index without a predicate when the attribute leads one.
    /// - Throws: as ``aggregate(_:)-(AggregateDescriptor<Model>)``.
    public func maximum<Model: PersistentModel, Value: AttributeStorable>(
        _ keyPath: KeyPath<Model, Value>, where predicate: Predicate<Model>? = nil
    ) throws -> Value? {
        if predicate == nil, let value = extremeFromIndex(keyPath, of: Model.self, .maximum),
            let converted = Self.convert(value, to: Value?.self)
        {
            return converted
        }
        return try single(.maximum(keyPath), predicate, as: Value?.self)
    }

    /// The distinct values of an attribute (or of an attribute through a to-one relationship)
    /// among the objects `predicate` selects, ascending in the order of indexes (`nil` first,
    /// when present). Read from an index without a predicate when the attribute leads one.
    /// - Throws: as ``aggregate(_:)-(AggregateDescriptor<Model>)``.
    public func distinct<Model: PersistentModel, Value: AttributeStorable>(
        _ keyPath: KeyPath<Model, Value>, where predicate: Predicate<Model>? = nil
    ) throws -> [Value] {
        let rows = try aggregate(AggregateDescriptor(predicate: predicate, groupBy: [keyPath]))
        return try rows.map { row in
            guard let value = Value(attributeValue: row.group[0]) else {
                throw LogbookError.invalidQuery(
                    "a value of the key path does not convert to \(Value.self)")
            }
            return value
        }
    }

    /// The distinct values of the attribute `attribute` (or `relationship.attribute`) of the
    /// entity `entity` among the objects `predicate` selects, ascending.
    /// - Throws: as ``aggregate(_:)-(EntityAggregateDescriptor)``.
    public func distinctValues(
        entity: String, attribute: String, where predicate: StringPredicate? = nil
    ) throws -> [AttributeValue] {
        try aggregate(
            EntityAggregateDescriptor(
                entityName: entity, predicate: predicate, groupBy: [attribute])
        ).map { $0.group[0] }
    }

    /// The one value of an aggregate without group keys computing `function`, as `T`.
    private func single<Model: PersistentModel, T>(
        _ function: AggregateFunction<Model>, _ predicate: Predicate<Model>?, as type: T.Type
    ) throws -> T {
        let plan = try makePlan(AggregateDescriptor(predicate: predicate, computing: [function]))
        let value = try aggregate(plan).first?.values.first ?? .null
        if let converted = Self.convert(value, to: T.self) { return converted }
        if function.operation == .sum, case .integer = value {
            // Invariant: the plan has the one function.
            throw LogbookError.aggregateOverflow(
                entity: plan.binding.entity.name, attribute: plan.functions[0].attribute)
        }
        throw LogbookError.invalidQuery(
            "the \(function.operation) is a \(value.type?.description ?? "nil"), not a \(T.self)")
    }

    static func convert<T>(_ value: AttributeValue, to type: T.Type) -> T? {
        if let storable = T.self as? any AttributeStorable.Type {
            return storable.init(attributeValue: value) as? T
        }
        return nil
    }
}
