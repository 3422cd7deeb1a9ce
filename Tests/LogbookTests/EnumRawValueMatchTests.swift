import Foundation
import Logbook
import TestSupport
import Testing

/// A String-backed enum whose raw values share lengths, one of them empty.
enum TileShape: String, Codable {
    case ab, ba
    case empty = ""
    case abc, b
}

final class Tile: PersistentModel {
    @Attribute var number = 0
    @Attribute var shape = TileShape.abc
    @Attribute var other: TileShape? = nil
    init() {}
}

/// A fetched enum's case is found by matching the record's raw value bytes against each case's,
/// also among cases of the same length and for an empty raw value.
@MainActor @Suite struct EnumRawValueMatchTests {
    @Test func everyCaseReadsBackFromItsRecord() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Tile.self])
        let shapes: [TileShape] = [.ab, .ba, .empty, .abc, .b]
        let seed = ModelContext(container)
        for (i, shape) in shapes.enumerated() {
            let tile = Tile()
            tile.number = i
            tile.shape = shape
            tile.other = i % 2 == 0 ? shapes[shapes.count - 1 - i] : nil
            seed.insert(tile)
        }
        try seed.save()
        let tiles = try ModelContext(container).fetch(
            FetchDescriptor<Tile>(sortBy: [SortDescriptor(\.number)]))
        #expect(tiles.map(\.shape) == shapes)
        #expect(tiles.map(\.other) == [.b, nil, .empty, nil, .ab])
        let empty = TileShape.empty
        let matched = try ModelContext(container).fetch(
            FetchDescriptor<Tile>(predicate: #Predicate { $0.shape == empty }))
        #expect(matched.map(\.number) == [2])
    }
}
