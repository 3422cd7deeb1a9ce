import Foundation
import Logbook
import TestSupport
import Testing

/// To-one and to-many relationships, inverses kept in step, delete rules.
@MainActor @Suite struct RelationshipTests {
    private let types: [any PersistentModel.Type] = [Company.self, StaffedEmployee.self]

    @Test func theSchemaRecordsRelationshipsAndInverses() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(types)
        let company = try #require(container.schema.entity(named: "Company"))
        #expect(
            company.relationships == [
                RelationshipDescription(
                    "employees", destination: "StaffedEmployee", toMany: true, inverse: "company",
                    deleteRule: .cascade)
            ])
        let employee = try #require(container.schema.entity(named: "StaffedEmployee"))
        #expect(
            employee.relationships == [
                RelationshipDescription("company", destination: "Company", inverse: "employees")
            ])
        #expect(
            try Schema.stored(in: container.store)?.entity(named: "Company")?.relationships
                == company.relationships)
    }

    @Test func toOneSurvivesReopeningAndToManyIsItsInverse() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open(types)
            let context = container.mainContext
            let acme = Company(name: "Acme")
            context.insert(acme)
            context.insert(StaffedEmployee(name: "Ann", company: acme))
            context.insert(StaffedEmployee(name: "Bob", company: acme))
            context.insert(StaffedEmployee(name: "Cid"))
            #expect(acme.employees.map(\.name) == ["Ann", "Bob"], "pending changes count")
            try context.save()
            try container.close()
        }
        let container = try fixture.open(types)
        let context = container.mainContext
        let acme = try #require(try context.fetch(FetchDescriptor<Company>()).first)
        #expect(acme.employees.map(\.name) == ["Ann", "Bob"])
        let ann = try #require(
            try context.fetch(
                FetchDescriptor<StaffedEmployee>(predicate: #Predicate { $0.name == "Ann" })
            ).first)
        #expect(ann.company === acme)
        let cid = try #require(
            try context.fetch(
                FetchDescriptor<StaffedEmployee>(predicate: #Predicate { $0.name == "Cid" })
            ).first)
        #expect(cid.company == nil)
    }

    @Test func settingEitherSideKeepsTheOtherInStep() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(types)
        let context = container.mainContext
        let acme = Company(name: "Acme")
        let globex = Company(name: "Globex")
        let ann = StaffedEmployee(name: "Ann")
        let bob = StaffedEmployee(name: "Bob")
        for model in [acme, globex] { context.insert(model) }
        for model in [ann, bob] { context.insert(model) }
        try context.save()

        acme.employees = [ann, bob]
        #expect(ann.company === acme && bob.company === acme)
        ann.company = globex
        #expect(acme.employees.map(\.name) == ["Bob"])
        #expect(globex.employees.map(\.name) == ["Ann"])
        acme.employees.removeAll()
        #expect(bob.company == nil)
        try context.save()
        let fresh = ModelContext(container)
        let stored = try fresh.fetch(FetchDescriptor<Company>(sortBy: [SortDescriptor(\.name)]))
        #expect(stored.map { $0.employees.map(\.name) } == [[], ["Ann"]])
    }

    @Test func assigningAnObjectOutsideTheContextInsertsIt() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(types)
        let context = container.mainContext
        let acme = Company(name: "Acme")
        acme.employees = [StaffedEmployee(name: "Ann")]
        context.insert(acme)
        #expect(context.insertedModels.count == 2)
        try context.save()
        let fresh = ModelContext(container)  // related objects are read through a living context
        #expect(try fresh.fetch(FetchDescriptor<StaffedEmployee>()).first?.company?.name == "Acme")
    }

    @Test func cascadeDeletesMembers() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(types)
        let context = container.mainContext
        let acme = Company(name: "Acme")
        context.insert(acme)
        context.insert(StaffedEmployee(name: "Ann", company: acme))
        context.insert(StaffedEmployee(name: "Cid"))
        try context.save()
        context.delete(acme)
        #expect(context.deletedModels.count == 2)
        try context.save()
        #expect(
            try ModelContext(container).fetch(FetchDescriptor<StaffedEmployee>()).map(\.name) == [
                "Cid"
            ])
    }

    @Test func nullifyClearsTheInverse() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let schema = Schema([
            Entity(
                name: "Team", attributes: [AttributeDescription("name", .string)],
                relationships: [
                    RelationshipDescription(
                        "members", destination: "Player", toMany: true, inverse: "team")
                ]),
            Entity(
                name: "Player", attributes: [AttributeDescription("name", .string)],
                relationships: [
                    RelationshipDescription("team", destination: "Team", inverse: "members")
                ]),
        ])
        let container = try fixture.open(schema: schema)
        let context = container.mainContext
        let team = try context.insert(entity: "Team", values: ["name": "Reds"])
        let player = try context.insert(entity: "Player", values: ["name": "Ann"])
        try player.setValue(team, forKey: "team")
        #expect((try team.value(forKey: "members") as? [any ModelObject])?.count == 1)
        try context.save()
        context.delete(team)
        try context.save()
        let stored = try ModelContext(container).fetch(entity: "Player")
        #expect(stored.count == 1)
        #expect(try stored[0].value(forKey: "team") == nil)
    }

    @Test func denyRefusesTheSaveWhileMembersRemain() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let schema = Schema([
            Entity(
                name: "Team", attributes: [AttributeDescription("name", .string)],
                relationships: [
                    RelationshipDescription(
                        "members", destination: "Player", toMany: true, inverse: "team",
                        deleteRule: .deny)
                ]),
            Entity(
                name: "Player", attributes: [AttributeDescription("name", .string)],
                relationships: [
                    RelationshipDescription("team", destination: "Team", inverse: "members")
                ]),
        ])
        let container = try fixture.open(schema: schema)
        let context = container.mainContext
        let team = try context.insert(entity: "Team", values: ["name": "Reds"])
        let player = try context.insert(entity: "Player", values: ["name": "Ann"])
        try player.setValue(team, forKey: "team")
        try context.save()
        context.delete(team)
        let id = team.persistentModelID.description
        #expect(
            throws: LogbookError.deleteDenied(entity: "Team", relationship: "members", object: id)
        ) {
            try context.save()
        }
        context.delete(player)
        try context.save()
        #expect(try container.store.count(in: "Team") == 0)
    }

    @Test func rollbackRestoresAToOne() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(types)
        let context = container.mainContext
        let acme = Company(name: "Acme")
        let ann = StaffedEmployee(name: "Ann", company: acme)
        context.insert(ann)
        try context.save()
        ann.company = nil
        #expect(acme.employees.isEmpty)
        context.rollback()
        #expect(ann.company === acme)
        #expect(acme.employees.map(\.name) == ["Ann"])
    }

    @Test func recordsStoreTheDestinationKeyAfterTheAttributes() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open(types)
        let context = container.mainContext
        let acme = Company(name: "Acme")
        context.insert(StaffedEmployee(name: "Ann", salary: 1, company: acme))
        context.insert(StaffedEmployee(name: "Bob", salary: 2))
        try context.save()
        // schema 1, object 1, bitmap (company is the one optional), "Ann", zigzag(1), zigzag(pk 1)
        #expect(
            try container.store.get([0, 0, 0, 0, 0, 0, 0, 1], in: "StaffedEmployee") == [
                1, 1, 0, 3, 65, 110, 110, 2, 2,
            ])
        #expect(
            try container.store.get([0, 0, 0, 0, 0, 0, 0, 2], in: "StaffedEmployee") == [
                1, 1, 1, 3, 66, 111, 98, 4,
            ])
        let records = try RecordDecoder(store: container.store).records(
            of: "StaffedEmployee", in: container.store)
        #expect(records.map { $0.values["company"] } == [.integer(1), .null])
    }

    @Test func addingARelationshipMigratesAndOldRecordsHaveNone() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let team = Entity(name: "Team", attributes: [AttributeDescription("name", .string)])
        let player = Entity(name: "Player", attributes: [AttributeDescription("name", .string)])
        do {
            let container = try fixture.open(schema: Schema([team, player]))
            try container.mainContext.insert(entity: "Player", values: ["name": "Ann"])
            try container.mainContext.save()
            try container.close()
        }
        var linkedTeam = team
        linkedTeam.relationships = [
            RelationshipDescription("members", destination: "Player", toMany: true, inverse: "team")
        ]
        var linkedPlayer = player
        linkedPlayer.relationships = [
            RelationshipDescription("team", destination: "Team", inverse: "members")
        ]
        let container = try fixture.open(schema: Schema([linkedTeam, linkedPlayer]))
        #expect(container.schema.version == 2)
        let context = container.mainContext
        let ann = try #require(try context.fetch(entity: "Player").first)
        #expect(try ann.value(forKey: "team") == nil)
        let reds = try context.insert(entity: "Team", values: ["name": "Reds"])
        try ann.setValue(reds, forKey: "team")
        try context.save()
        #expect((try reds.value(forKey: "members") as? [any ModelObject])?.count == 1)
    }

    @Test func invalidRelationshipsAreRefused() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let dangling = Schema([
            Entity(
                name: "Player", attributes: [AttributeDescription("name", .string)],
                relationships: [RelationshipDescription("team", destination: "Team")])
        ])
        #expect(throws: LogbookError.self) { try fixture.open(schema: dangling) }
        let toManyWithoutInverse = Schema([
            Entity(
                name: "Team", attributes: [AttributeDescription("name", .string)],
                relationships: [
                    RelationshipDescription("members", destination: "Team", toMany: true)
                ])
        ])
        #expect(throws: LogbookError.self) { try fixture.open(schema: toManyWithoutInverse) }
        #expect(throws: LogbookError.self) { try fixture.open([StaffedEmployee.self]) }
    }
}
