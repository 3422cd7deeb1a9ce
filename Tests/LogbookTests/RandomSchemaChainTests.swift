import Foundation
import Logbook
import TestSupport
import Testing

/// Random chains of 3–5 schema versions, each a random lightweight change (add, remove, rename
/// through originalName, widen Int32→Int64→Double, make optional, make required with a
/// default), with random inserts, updates and deletes at every version, checked against a model
/// of the data in Swift after every step, and after compaction at the end.
@MainActor @Suite struct RandomSchemaChainTests {
    /// The model: the entity as it is now, and each live object's values by attribute name.
    struct Model {
        var entity: Entity
        var objects: [String: [String: AttributeValue]] = [:]  // by "Item/<pk>"
        var nextName = 0

        mutating func freshName() -> String {
            nextName += 1
            return "f\(nextName)"
        }
    }

    @Test(arguments: 0..<12)
    func aRandomChainMatchesItsModel(run: Int) throws {
        let seed = testSeed("schema chain \(run)")
        var rng = SeededGenerator(seed: seed)
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        var model = Model(
            entity: Entity(
                name: "Item",
                attributes: [
                    AttributeDescription("f0", .int32),
                    AttributeDescription("label", .string, optional: true),
                ]))
        var steps: [String] = []
        let versions = Int.random(in: 3...5, using: &rng)
        for version in 0..<versions {
            if version > 0 { steps.append(change(&model, using: &rng)) }
            let container = try fixture.open(schema: Schema([model.entity]))
            try check(container, model, "seed \(seed), after \(steps)")
            try mutate(container, &model, using: &rng)
            try check(container, model, "seed \(seed), saved after \(steps)")
            try container.close()
        }
        let last = try fixture.open(schema: Schema([model.entity]))
        _ = try last.store.compact()
        try last.close()
        let compacted = try fixture.open(schema: Schema([model.entity]))
        try check(compacted, model, "seed \(seed), compacted after \(steps)")
    }

    /// A random lightweight change of the model's entity, applied to its objects too.
    private func change(_ model: inout Model, using rng: inout SeededGenerator) -> String {
        var attributes = model.entity.attributes
        for i in attributes.indices { attributes[i].originalName = nil }
        let i = Int.random(in: 0..<attributes.count, using: &rng)
        let picked = attributes[i]
        func apply(_ body: (inout [String: AttributeValue]) -> Void) {
            for key in model.objects.keys { body(&model.objects[key]!) }
        }
        var kind = Int.random(in: 0..<6, using: &rng)
        if kind == 1 && attributes.count < 2 { kind = 0 }
        switch kind {
        case 0:
            let name = model.freshName()
            let defaulted = Bool.random(using: &rng)
            attributes.append(
                defaulted
                    ? AttributeDescription(name, .integer, defaultValue: .integer(7))
                    : AttributeDescription(name, .string, optional: true))
            apply { $0[name] = defaulted ? .integer(7) : .null }
            model.entity.attributes = attributes
            return "add \(name)"
        case 1:
            attributes.remove(at: i)
            apply { $0[picked.name] = nil }
            model.entity.attributes = attributes
            return "remove \(picked.name)"
        case 2:
            let name = model.freshName()
            attributes[i].name = name
            attributes[i].originalName = picked.name
            apply {
                $0[name] = $0[picked.name]
                $0[picked.name] = nil
            }
            model.entity.attributes = attributes
            return "rename \(picked.name) to \(name)"
        case 3 where picked.type == .int32 || picked.type == .integer:
            let wider: AttributeType = picked.type == .int32 ? .integer : .double
            attributes[i].type = wider
            if let value = attributes[i].defaultValue {
                attributes[i].defaultValue = wider == .double ? value.asDouble : value
            }
            if wider == .double { apply { $0[picked.name] = $0[picked.name]?.asDouble } }
            model.entity.attributes = attributes
            return "widen \(picked.name) to \(wider)"
        case 4 where !picked.isOptional:
            attributes[i].isOptional = true
            model.entity.attributes = attributes
            return "make \(picked.name) optional"
        case 5 where picked.isOptional:
            let fallback = Self.sample(picked.type, 99)
            attributes[i].isOptional = false
            attributes[i].defaultValue = fallback
            apply { if $0[picked.name] == .null { $0[picked.name] = fallback } }
            model.entity.attributes = attributes
            return "make \(picked.name) required, default \(fallback)"
        default:
            let name = model.freshName()
            attributes.append(AttributeDescription(name, .int32, defaultValue: .integer(3)))
            apply { $0[name] = .integer(3) }
            model.entity.attributes = attributes
            return "add \(name) (Int32)"
        }
    }

    /// Random inserts, updates and deletes, saved; the model follows.
    private func mutate(
        _ container: ModelContainer, _ model: inout Model, using rng: inout SeededGenerator
    ) throws {
        let context = ModelContext(container)
        let attributes = model.entity.attributes
        func randomValue(_ attribute: AttributeDescription) -> AttributeValue {
            if attribute.isOptional && Int.random(in: 0..<4, using: &rng) == 0 { return .null }
            return Self.sample(attribute.type, Int.random(in: 0..<1000, using: &rng))
        }
        for _ in 0..<Int.random(in: 1...6, using: &rng) {
            var values: [String: AttributeValue] = [:]
            for attribute in attributes { values[attribute.name] = randomValue(attribute) }
            let object = try context.insert(
                entity: "Item", values: values.mapValues { Self.plain($0) })
            try context.save()
            model.objects[object.persistentModelID.description] = values
        }
        let objects = try context.fetch(entity: "Item")
        for object in objects where Int.random(in: 0..<3, using: &rng) == 0 {
            let id = object.persistentModelID.description
            if Bool.random(using: &rng) {
                context.delete(object)
                model.objects[id] = nil
            } else {
                let attribute = attributes.randomElement(using: &rng)!
                let value = randomValue(attribute)
                try object.setValue(Self.plain(value), forKey: attribute.name)
                model.objects[id]?[attribute.name] = value
            }
        }
        try context.save()
    }

    private func check(_ container: ModelContainer, _ model: Model, _ label: String) throws {
        let objects = try ModelContext(container).fetch(entity: "Item")
        var found: [String: [String: AttributeValue]] = [:]
        for object in objects {
            var values: [String: AttributeValue] = [:]
            for attribute in model.entity.attributes {
                let value = try object.value(forKey: attribute.name)
                values[attribute.name] =
                    AttributeValue.converting(value, to: attribute.type) ?? .string("?\(value!)")
            }
            found[object.persistentModelID.description] = values
        }
        #expect(found == model.objects, "\(label)")
    }

    static func sample(_ type: AttributeType, _ n: Int) -> AttributeValue {
        switch type {
        case .string: return .string("s\(n)")
        case .double: return .double(Double(n) + 0.5)
        default: return .integer(Int64(n))
        }
    }

    /// The Swift value a dynamic object takes for `value`.
    static func plain(_ value: AttributeValue) -> Any? {
        switch value {
        case .null: return nil
        case .string(let s): return s
        case .integer(let i): return i
        case .double(let d): return d
        default: return nil
        }
    }
}

extension AttributeValue {
    fileprivate var asDouble: AttributeValue {
        if case .integer(let i) = self { return .double(Double(i)) }
        return self
    }
}
