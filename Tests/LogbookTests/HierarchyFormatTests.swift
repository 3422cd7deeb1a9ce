import Foundation
import Testing

@testable import Logbook

/// FORMAT.md Part 2, "Schema records": the hierarchy section of format 3.
@Suite struct HierarchyFormatTests {
    private let schema = Schema([
        Entity(name: "Animal", attributes: [AttributeDescription("name", .string)]),
        Entity(
            name: "Dog",
            attributes: [
                AttributeDescription("name", .string), AttributeDescription("breed", .string),
            ],
            superentity: "Animal"),
    ])

    @Test func aSubEntityMakesFormat3EndingWithEachEntitysSuperentity() throws {
        try schema.validate()
        let bytes = SchemaCodec.encode(schema)
        #expect(bytes.first == 3)
        #expect(Array(bytes.suffix(8)) == [0, 6] + Array("Animal".utf8))
        let decoded = try bytes.withUnsafeBytes { try SchemaCodec.decode($0, key: "1") }
        #expect(decoded == schema)
        #expect(decoded.entity(named: "Dog")?.superentity == "Animal")
    }

    @Test func withoutOneTheBytesOfEarlierFormatsStay() {
        var dog = schema.entities[1]
        dog.superentity = nil
        #expect(SchemaCodec.encode(Schema([schema.entities[0], dog])).first == 1)
    }
}
