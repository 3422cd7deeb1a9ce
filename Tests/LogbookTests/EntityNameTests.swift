import Foundation
import Logbook
import TestSupport
import Testing

/// The default entity name is the class name, whoever asks and from whichever thread (it is
/// worked out once per class), and a declared name wins.
@Suite struct EntityNameTests {
    final class Ledger: PersistentModel {
        @Attribute var title = ""
        init() {}
    }

    final class Renamed: PersistentModel {
        static var entityName: String { "Account" }
        @Attribute var title = ""
        init() {}
    }

    @Test func theDefaultNameIsTheClassNameOnEveryThread() async {
        let expected = [String(describing: Employee.self), String(describing: Ledger.self)]
        #expect(expected == ["Employee", "Ledger"])
        let names = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<1_000).flatMap { _ in [Employee.entityName, Ledger.entityName] }
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(names.count == 16_000)
        #expect(names.allSatisfy { expected.contains($0) })
        #expect(names.filter { $0 == "Ledger" }.count == 8_000)
        #expect(Renamed.entityName == "Account")
    }

    final class Tagged<Tag>: PersistentModel {
        @Attribute var title = ""
        init() {}
    }

    /// More classes than the names kept in a short list: each keeps its own name, asked first
    /// or again.
    @Test func manyClassesEachKeepTheirOwnName() {
        let types: [any PersistentModel.Type] = [
            Tagged<Int8>.self, Tagged<Int16>.self, Tagged<Int32>.self, Tagged<Int64>.self,
            Tagged<UInt8>.self, Tagged<UInt16>.self, Tagged<UInt32>.self, Tagged<UInt64>.self,
            Tagged<Float>.self, Tagged<Double>.self, Tagged<String>.self, Tagged<Bool>.self,
            Tagged<Character>.self, Tagged<[Int]>.self, Tagged<[String]>.self,
            Tagged<Set<Int>>.self, Tagged<Int?>.self, Tagged<String?>.self, Tagged<Data>.self,
            Tagged<Date>.self, Tagged<URL>.self, Tagged<UUID>.self, Tagged<Decimal>.self,
            Tagged<Int>.self,
        ]
        for _ in 0..<2 {
            for type in types { #expect(type.entityName == String(describing: type)) }
        }
        #expect(Set(types.map { $0.entityName }).count == types.count)
    }

    @Test func identifiersMadeFromTheDefaultNameFindTheObject() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try ModelContainer(for: [Ledger.self], at: fixture.url)
        let context = ModelContext(container)
        let ledger = Ledger()
        ledger.title = "Q4"
        context.insert(ledger)
        try context.save()
        let id = PersistentIdentifier(
            entityName: Ledger.entityName, primaryKey: ledger.persistentModelID.primaryKey)
        #expect(try ModelContext(container).model(for: id, as: Ledger.self)?.title == "Q4")
    }
}
