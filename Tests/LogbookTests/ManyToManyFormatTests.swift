import Foundation
import TestSupport
import Testing

@testable import Logbook

/// FORMAT.md Part 2 for many-to-many: schema format 3 with the storing side flagged 2 (only when
/// needed), link lists in records, and what a reader refuses.
@Suite struct ManyToManyFormatTests {
    private let linked = Schema([
        Entity(
            name: "Course", attributes: [AttributeDescription("title", .string)],
            relationships: [
                RelationshipDescription(
                    "students", destination: "Student", toMany: true, inverse: "courses",
                    storesLinks: true)
            ]),
        Entity(
            name: "Student", attributes: [AttributeDescription("name", .string)],
            relationships: [
                RelationshipDescription(
                    "courses", destination: "Course", toMany: true, inverse: "students")
            ]),
    ])

    @Test func aSchemaWithAManyToManyIsFormat3WithTheStoringSideFlagged() throws {
        try linked.validate()
        let bytes = SchemaCodec.encode(linked)
        #expect(bytes.first == 3)
        let decoded = try bytes.withUnsafeBytes { try SchemaCodec.decode($0, key: "1") }
        #expect(decoded == linked)
        // "students", "Student", then the flag.
        let name = Array("students".utf8) + [7] + Array("Student".utf8)
        let at = try #require(
            bytes.indices.first { Array(bytes[$0...].prefix(name.count)) == name })
        #expect(bytes[at + name.count] == 2)
    }

    @Test func aSchemaWithoutOneKeepsItsFormat() {
        var plain = linked
        plain = Schema([
            Entity(
                name: "Company", attributes: [AttributeDescription("name", .string)],
                relationships: [
                    RelationshipDescription(
                        "staff", destination: "Person", toMany: true, inverse: "company")
                ]),
            Entity(
                name: "Person", attributes: [AttributeDescription("name", .string)],
                relationships: [
                    RelationshipDescription("company", destination: "Company", inverse: "staff")
                ]),
        ])
        #expect(SchemaCodec.encode(plain).first == 1)
    }

    @Test func aFlag2InAnOlderFormatOrTwoStoringSidesAreRefused() throws {
        var bytes = SchemaCodec.encode(linked)
        bytes[0] = 2
        #expect(throws: LogbookError.self) {
            _ = try bytes.withUnsafeBytes { try SchemaCodec.decode($0, key: "1") }
        }
        var both = linked
        both = Schema(
            linked.entities.map { entity in
                var e = entity
                e.relationships[0].storesLinks = true
                return e
            })
        #expect(throws: LogbookError.self) { try both.validate() }
    }

    @Test func linkListsAreAscendingBigEndianKeysAndAnythingElseIsRefused() {
        #expect(
            LinkList.value([3, 1, 3, 0])
                == .data(Data([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3])))
        #expect(LinkList.value([]) == .null)
        #expect(
            LinkList.keys(.data(Data([0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1]))) == nil)
        #expect(LinkList.keys(.data(Data([0, 0, 0, 1]))) == nil)
        #expect(LinkList.keys(.data(Data(repeating: 0, count: 8))) == nil)
    }
}
