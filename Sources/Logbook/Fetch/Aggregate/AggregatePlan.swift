import Foundation

/// An aggregate reduced to stored field positions: which objects (a ``FetchPlan`` without
/// sort), how to group them, what to compute, and how to finish the rows. Built from an
/// ``AggregateDescriptor`` or an ``EntityAggregateDescriptor``.
struct AggregatePlan {
    /// One group key.
    enum GroupKey {
        /// A stored field (an attribute, or a to-one relationship's key).
        case field(Int)
        /// An attribute of the object a to-one relationship (at stored field `slot`) reaches.
        case related(slot: Int, destination: EntityBinding, field: Int)

        /// The stored field the scan groups by.
        var storedField: Int {
            switch self {
            case .field(let f): f
            case .related(let slot, _, _): slot
            }
        }
    }

    /// One function: what it computes, over which attribute.
    struct Function {
        let operation: AggregateOperation
        /// The attribute's stored position.
        let field: Int
        let type: AttributeType
        let attribute: String
    }

    var fetch: FetchPlan
    var groups: [GroupKey] = []
    var functions: [Function] = []
    var columns: AggregateColumns
    var having: ((AggregateRow) throws -> Bool)?
    /// Sort keys: positions among the row's columns (group keys, count, functions).
    var sort: [(column: Int, ascending: Bool)] = []
    var limit: Int?
    var offset: Int?

    var binding: EntityBinding { fetch.binding }

    /// The function over attribute `field` of `binding`, checked: a sum needs a number, an
    /// average a number or a date.
    /// - Throws: ``LogbookError/typeMismatch(entity:attribute:expected:found:)``.
    static func function(
        _ operation: AggregateOperation, field: Int, of binding: EntityBinding
    ) throws -> Function {
        let attribute = binding.stored.attributes[field]
        let allowed: Bool
        switch operation {
        case .sum: allowed = AggregateNumber.canSum(attribute.type)
        case .average: allowed = AggregateNumber.canAverage(attribute.type)
        case .count, .minimum, .maximum: allowed = true
        }
        guard allowed else {
            throw LogbookError.typeMismatch(
                entity: binding.entity.name, attribute: attribute.name,
                expected: operation == .sum ? "a number to sum" : "a number or a Date to average",
                found: attribute.type.description)
        }
        return Function(
            operation: operation, field: field, type: attribute.type, attribute: attribute.name)
    }

    /// The column name of a function: `sum_salary`.
    static func columnName(_ operation: AggregateOperation, _ attribute: String) -> String {
        "\(operation.columnPrefix)_\(attribute)"
    }
}

extension ModelContext {
    /// The plan of a typed aggregate.
    /// - Throws: ``LogbookError/invalidQuery(_:)`` for a key path that is not an attribute, a
    ///   to-one relationship or an attribute through one; as ``AggregatePlan/function(_:field:of:)``.
    func makePlan<Model: PersistentModel>(_ descriptor: AggregateDescriptor<Model>) throws
        -> AggregatePlan
    {
        var fetch = FetchDescriptor<Model>(predicate: descriptor.predicate)
        fetch.includePendingChanges = descriptor.includePendingChanges
        let fetchPlan = try makePlan(fetch)
        let binding = fetchPlan.binding
        let resolver = planCache.resolver(for: binding)
        var groups: [AggregatePlan.GroupKey] = []
        var names: [String] = []
        for keyPath in descriptor.groupBy {
            if let field = resolver.attributeIndex(keyPath) {
                groups.append(.field(field))
                names.append(binding.stored.attributes[field].name)
            } else if let related = RelatedKeyPath.resolve(keyPath, of: binding, in: core) {
                groups.append(
                    .related(
                        slot: related.slot, destination: related.destination, field: related.field))
                names.append(related.name)
            } else {
                throw LogbookError.invalidQuery(
                    "a group key of \(binding.entity.name) is not an attribute, a to-one relationship or an attribute through one"
                )
            }
        }
        var functions: [AggregatePlan.Function] = []
        for function in descriptor.functions {
            guard let field = resolver.attributeIndex(function.keyPath),
                field < binding.attributeCount
            else {
                throw LogbookError.invalidQuery(
                    "the \(function.operation) of \(binding.entity.name) reads a key path that is not an attribute"
                )
            }
            functions.append(
                try AggregatePlan.function(function.operation, field: field, of: binding))
        }
        let columns = AggregateColumns(
            names: names + ["count"]
                + functions.map { AggregatePlan.columnName($0.operation, $0.attribute) },
            groupKeyPaths: descriptor.groupBy,
            functions: descriptor.functions.map { ($0.operation, $0.keyPath) })
        var plan = AggregatePlan(
            fetch: fetchPlan, groups: groups, functions: functions, columns: columns)
        plan.having = descriptor.having
        plan.limit = descriptor.limit
        plan.offset = descriptor.offset
        plan.sort = try descriptor.sortBy.map { sort in
            let column: Int?
            switch sort.key {
            case .group(let keyPath):
                column = descriptor.groupBy.firstIndex(of: keyPath)
            case .count:
                column = groups.count
            case .function(let function):
                column = descriptor.functions.firstIndex(of: function).map { groups.count + 1 + $0 }
            }
            guard let column else {
                throw LogbookError.invalidQuery(
                    "a sort of the aggregate names a group key or function it does not have")
            }
            return (column, sort.order == .forward)
        }
        return plan
    }

    /// The plan of an aggregate by name.
    /// - Throws: ``LogbookError/unknownAttribute(entity:attribute:)`` for a name the entity
    ///   lacks, ``LogbookError/invalidQuery(_:)`` for a column name the rows lack; as
    ///   ``AggregatePlan/function(_:field:of:)``.
    func makePlan(_ descriptor: EntityAggregateDescriptor) throws -> AggregatePlan {
        var fetch = EntityFetchDescriptor(
            entityName: descriptor.entityName, predicate: descriptor.predicate)
        fetch.includePendingChanges = descriptor.includePendingChanges
        let fetchPlan = try makePlan(fetch)
        let binding = fetchPlan.binding
        let entity = binding.entity
        var groups: [AggregatePlan.GroupKey] = []
        for name in descriptor.groupBy {
            if let field = binding.stored.attributeIndex(name) {
                groups.append(.field(field))
                continue
            }
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2,
                let r = entity.relationships.firstIndex(where: { $0.name == parts[0] }),
                !entity.relationships[r].isToMany
            else { throw LogbookError.unknownAttribute(entity: entity.name, attribute: name) }
            let destination = try core.binding(named: entity.relationships[r].destination)
            guard let field = destination.stored.attributeIndex(parts[1]) else {
                throw LogbookError.unknownAttribute(
                    entity: destination.entity.name, attribute: parts[1])
            }
            groups.append(
                .related(slot: binding.relationshipSlots[r], destination: destination, field: field)
            )
        }
        let functions = try descriptor.functions.map { operation, attribute in
            guard let field = entity.attributeIndex(attribute) else {
                throw LogbookError.unknownAttribute(entity: entity.name, attribute: attribute)
            }
            return try AggregatePlan.function(operation, field: field, of: binding)
        }
        let names =
            descriptor.groupBy + ["count"]
            + functions.map { AggregatePlan.columnName($0.operation, $0.attribute) }
        guard Set(names).count == names.count else {
            throw LogbookError.invalidQuery(
                "two columns of the aggregate have the same name: \(names.joined(separator: ", "))")
        }
        var plan = AggregatePlan(
            fetch: fetchPlan, groups: groups, functions: functions,
            columns: AggregateColumns(names: names))
        if let having = descriptor.having {
            plan.having = { row in
                var values: [String: AttributeValue] = [:]
                for name in names { values[name] = row[column: name] }
                return try having.evaluate(values)
            }
        }
        plan.limit = descriptor.limit
        plan.offset = descriptor.offset
        plan.sort = try descriptor.sortBy.map { column, ascending in
            guard let i = names.firstIndex(of: column) else {
                throw LogbookError.invalidQuery(
                    "the aggregate has no column \"\(column)\" to sort by; its columns are \(names.joined(separator: ", "))"
                )
            }
            return (i, ascending)
        }
        return plan
    }
}
