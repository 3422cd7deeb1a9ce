import Foundation
import Logbook
import TestSupport
import Testing

// One model per kind of type Logbook cannot store. Each compiles (an `@Attribute` takes any
// type) and is refused when a container is created, with an error naming the class and the
// property: never dropped, never trapped on.

final class Box { var x = 0 }

final class HoldsAClass: PersistentModel {
    @Attribute var name = ""
    @Attribute var box = Box()
    init() {}
}

final class HoldsADictionary: PersistentModel {
    @Attribute var name = ""
    @Attribute var counts: [String: Int] = [:]
    init() {}
}

final class HoldsAClosure: PersistentModel {
    @Attribute var name = ""
    @Attribute var action: @Sendable () -> Void = {}
    init() {}
}

final class HoldsATuple: PersistentModel {
    @Attribute var name = ""
    @Attribute var pair = (1, 2)
    init() {}
}

struct NotCodable { var x = 0 }

final class HoldsANonCodableStruct: PersistentModel {
    @Attribute var name = ""
    @Attribute var value = NotCodable()
    init() {}
}

enum Letter: Character { case a = "a", b = "b" }

final class HoldsAnEnumOfAnUnstorableRawValue: PersistentModel {
    @Attribute var name = ""
    @Attribute var letter = Letter.a
    init() {}
}

enum Shape: Codable {
    case circle(radius: Double)
    case square(side: Double)
}

final class HoldsAnEnumWithPayloads: PersistentModel {
    @Attribute var name = ""
    @Attribute var shape = Shape.circle(radius: 1)
    init() {}
}

struct WithADictionary: Codable { var name = ""; var extra: [String: String] = [:] }

final class HoldsACompositeOfAnUnstorableField: PersistentModel {
    @Attribute var name = ""
    @Attribute var value = WithADictionary()
    init() {}
}

final class HoldsAnOptionalOptional: PersistentModel {
    @Attribute var name = ""
    @Attribute var twice: Int?? = nil
    init() {}
}

final class HoldsAModel: PersistentModel {
    @Attribute var name = ""
    @Attribute var employee: Employee? = nil
    init() {}
}

struct TreeNode: Codable { var label = ""; var children: [TreeNode] = [] }

final class HoldsARecursiveStruct: PersistentModel {
    @Attribute var name = ""
    @Attribute var tree = TreeNode()
    init() {}
}

struct Pair: Codable {
    var first = 0
    var second = 0
    init() {}
    init(from decoder: any Decoder) throws {
        var list = try decoder.unkeyedContainer()
        first = try list.decode(Int.self)
        second = try list.decode(Int.self)
    }
    func encode(to encoder: any Encoder) throws {
        var list = encoder.unkeyedContainer()
        try list.encode(first)
        try list.encode(second)
    }
}

final class HoldsACodableList: PersistentModel {
    @Attribute var name = ""
    @Attribute var pair = Pair()
    init() {}
}

struct Nothing: Codable {}

final class HoldsAnEmptyStruct: PersistentModel {
    @Attribute var name = ""
    @Attribute var nothing = Nothing()
    init() {}
}

/// A type that claims to store as an array through ``AttributeStorable``, which has no place
/// for the element type.
struct ClaimsArray: AttributeStorable {
    static var attributeType: AttributeType { .array }
    var attributeValue: AttributeValue { .array([]) }
    init?(attributeValue: AttributeValue) {}
    init() {}
}

final class HoldsAMisdeclaredStorable: PersistentModel {
    @Attribute var name = ""
    @Attribute var claim = ClaimsArray()
    init() {}
}

final class HoldsAnArrayOfEmptyStructs: PersistentModel {
    @Attribute var name = ""
    @Attribute var list: [Nothing] = []
    init() {}
}

@MainActor @Suite struct UnstorableAttributeTests {
    /// Opens a container for `type` and returns the refusal, checking it names the class and
    /// the property.
    private func refusal(
        _ type: any PersistentModel.Type, property: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (type: String, reason: String) {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            _ = try fixture.open([type])
        } catch LogbookError.unstorableAttribute(let entity, let attribute, let typeName, let reason) {
            #expect(entity == type.entityName, sourceLocation: sourceLocation)
            #expect(attribute == property, sourceLocation: sourceLocation)
            let message = LogbookError.unstorableAttribute(
                entity: entity, attribute: attribute, type: typeName, reason: reason
            ).description
            #expect(message.contains("\(entity).\(attribute)"), sourceLocation: sourceLocation)
            return (typeName, reason)
        }
        Issue.record("\(type) was not refused", sourceLocation: sourceLocation)
        return ("", "")
    }

    @Test func aClassIsRefused() throws {
        let (type, reason) = try refusal(HoldsAClass.self, property: "box")
        #expect(type == "Box")
        #expect(reason.contains("class"))
    }

    @Test func aDictionaryIsRefused() throws {
        #expect(try refusal(HoldsADictionary.self, property: "counts").reason.contains("dictionary"))
    }

    @Test func aClosureIsRefused() throws {
        #expect(try refusal(HoldsAClosure.self, property: "action").reason.contains("not a type"))
    }

    @Test func aTupleIsRefused() throws {
        _ = try refusal(HoldsATuple.self, property: "pair")
    }

    @Test func aStructThatIsNotCodableIsRefused() throws {
        #expect(try refusal(HoldsANonCodableStruct.self, property: "value").type == "NotCodable")
    }

    @Test func anEnumWithAnUnstorableRawValueIsRefused() throws {
        #expect(
            try refusal(HoldsAnEnumOfAnUnstorableRawValue.self, property: "letter").reason.contains(
                "Character"))
    }

    @Test func anEnumWithPayloadsIsRefused() throws {
        _ = try refusal(HoldsAnEnumWithPayloads.self, property: "shape")
    }

    @Test func aCompositeWithAnUnstorableFieldIsRefused() throws {
        #expect(
            try refusal(HoldsACompositeOfAnUnstorableField.self, property: "value").reason.contains(
                "dictionary"))
    }

    @Test func anOptionalOfAnOptionalIsRefused() throws {
        _ = try refusal(HoldsAnOptionalOptional.self, property: "twice")
    }

    @Test func aModelAsAnAttributeIsRefused() throws {
        #expect(
            try refusal(HoldsAModel.self, property: "employee").reason.contains("@Relationship"))
    }

    @Test func aStructThatContainsItselfIsRefused() throws {
        #expect(try refusal(HoldsARecursiveStruct.self, property: "tree").reason.contains("itself"))
    }

    @Test func aCodableThatIsAListIsRefused() throws {
        #expect(try refusal(HoldsACodableList.self, property: "pair").reason.contains("list"))
    }

    @Test func aStructWithoutFieldsIsRefused() throws {
        #expect(try refusal(HoldsAnEmptyStruct.self, property: "nothing").reason.contains("no fields"))
        #expect(
            try refusal(HoldsAnArrayOfEmptyStructs.self, property: "list").reason.contains(
                "no fields"))
    }

    @Test func anAttributeStorableConformanceWithoutMembersIsRefused() throws {
        _ = try refusal(HoldsAMisdeclaredStorable.self, property: "claim")
    }
}
