import Foundation
import Logbook
import TestSupport
import Testing

enum ParcelSize: String, Codable { case small, large }

struct ParcelBox: Codable {
    var w: UInt8 = 0
    var h: UInt8? = nil
}

/// The models of FORMAT.md Part 2, "Example: schema format 3, byte by byte".
final class Parcel: PersistentModel {
    @Attribute var price: Decimal = 0
    @Attribute var size = ParcelSize.small
    @Attribute var box = ParcelBox()
    @Attribute var tags: [String] = []
    @Relationship(inverse: \Route.parcels) var routes: [Route] = []
    init() {}
}

final class Route: PersistentModel {
    @Attribute var name = ""
    @Relationship var parcels: [Parcel] = []
    init() {}
}

/// FORMAT.md Part 2, "Example: schema format 3, byte by byte", checked byte for byte.
@MainActor @Suite struct TypedFormatExampleTests {
    static let formatPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../FORMAT.md").standardized.path

    /// The bytes of each code block of the example section, in order: on each line, the hex
    /// words before the first word that is not one (the comment).
    static func documentedBlocks() throws -> [[UInt8]] {
        let text = try String(contentsOfFile: formatPath, encoding: .utf8)
        let start = try #require(text.range(of: "### Example: schema format 3"))
        let end = try #require(text.range(of: "\n##", range: start.upperBound..<text.endIndex))
        var blocks: [[UInt8]] = []
        var inBlock = false
        for line in text[start.upperBound..<end.lowerBound].split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            if line.hasPrefix("```") {
                inBlock.toggle()
                if inBlock { blocks.append([]) }
                continue
            }
            guard inBlock else { continue }
            for word in line.split(separator: " ") {
                guard word.count % 2 == 0, word.allSatisfy(\.isHexDigit) else { break }
                var index = word.startIndex
                while index < word.endIndex {
                    let next = word.index(index, offsetBy: 2)
                    blocks[blocks.count - 1].append(UInt8(word[index..<next], radix: 16)!)
                    index = next
                }
            }
        }
        return blocks
    }

    @Test func oneParcelByteForByte() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Parcel.self, Route.self])
        let north = Route()
        north.name = "north"
        let south = Route()
        south.name = "south"
        container.mainContext.insert(north)
        container.mainContext.insert(south)
        let parcel = Parcel()
        parcel.price = Decimal(string: "12.5")!
        parcel.size = .large
        parcel.box = ParcelBox(w: 3)
        parcel.tags = ["a", "bc"]
        container.mainContext.insert(parcel)
        parcel.routes = [south, north]
        try container.mainContext.save()
        let schema = try #require(try container.store.get([0, 0, 0, 1], in: "logbook.schema"))
        let record = try #require(
            try container.store.get([0, 0, 0, 0, 0, 0, 0, 1], in: "Parcel"))
        let blocks = try Self.documentedBlocks()
        #expect(blocks.count == 2)
        #expect(schema == blocks.first, "\(schema.map { String($0, radix: 16) })")
        #expect(record == blocks.last, "\(record.map { String($0, radix: 16) })")
    }
}
