import Foundation
import Logbook
import Observation
import Synchronization
import TestSupport
import Testing

/// The base class of the inheritance examples: a fetch of `Animal` returns dogs and cats too.
class Animal: PersistentModel {
    @Attribute var name = ""
    @Attribute(.indexed) var legs: Int64 = 4
    required init() {}
}

final class Dog: Animal {
    @Attribute var breed = ""
    required init() {}
}

final class Cat: Animal {
    @Attribute var indoor = true
    required init() {}
}

/// A keeper whose favourite is any animal (a relationship to the base class).
final class Keeper: PersistentModel {
    @Attribute var name = ""
    @Relationship var favourite: Animal?
    init() {}
}

/// The seed's Employee as a base class, with a subclass.
class StaffMember: PersistentModel {
    @Attribute var name = ""
    @Attribute(.indexed) var designation = ""
    @Attribute var salary: Int64 = 0
    required init() {}
}

final class StaffManager: StaffMember {
    @Attribute var reports: Int64 = 0
    required init() {}
}

@MainActor @Suite struct InheritanceTests {
    private func zoo(_ context: ModelContext) {
        for (name, legs) in [("Rex", 4), ("Tripod", 3)] {
            let dog = Dog()
            dog.name = name
            dog.legs = Int64(legs)
            dog.breed = name == "Rex" ? "collie" : "pug"
            context.insert(dog)
        }
        let cat = Cat()
        cat.name = "Tom"
        cat.indoor = false
        context.insert(cat)
        let animal = Animal()
        animal.name = "Ant"
        animal.legs = 6
        context.insert(animal)
    }

    @Test func aFetchOfTheBaseClassReturnsEverySubclassTypedAsItsOwnClass() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Animal.self, Dog.self, Cat.self])
        zoo(container.mainContext)
        for context in [
            container.mainContext,
            try {
                try container.mainContext.save()
                return ModelContext(container)
            }(),
        ] {
            let all = try context.fetch(FetchDescriptor<Animal>(sortBy: [SortDescriptor(\.name)]))
            #expect(all.map(\.name) == ["Ant", "Rex", "Tom", "Tripod"])
            #expect(
                all.map { String(describing: type(of: $0)) } == ["Animal", "Dog", "Cat", "Dog"])
            #expect(all.map(\.persistentModelID.entityName) == ["Animal", "Dog", "Cat", "Dog"])
            #expect(try context.fetchCount(FetchDescriptor<Animal>()) == 4)
            #expect(try context.fetch(FetchDescriptor<Dog>()).count == 2)
            let ids = try context.fetchIdentifiers(
                FetchDescriptor<Animal>(sortBy: [SortDescriptor(\.name)]))
            #expect(ids.map(\.entityName) == ["Animal", "Dog", "Cat", "Dog"])
        }
    }

    @Test func basePredicatesMatchAcrossTheHierarchyAndSubclassOnesOnTheSubclass() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Animal.self, Dog.self, Cat.self])
        zoo(container.mainContext)
        try container.mainContext.save()
        let context = ModelContext(container)
        let fourLegged = try context.fetch(
            FetchDescriptor<Animal>(
                predicate: #Predicate { $0.legs == 4 }, sortBy: [SortDescriptor(\.name)]))
        #expect(fourLegged.map(\.name) == ["Rex", "Tom"])
        let few = try context.fetch(
            FetchDescriptor<Animal>(
                predicate: #Predicate { $0.legs < 5 && $0.name != "Rex" },
                sortBy: [SortDescriptor(\.legs, order: .reverse), SortDescriptor(\.name)]))
        #expect(few.map(\.name) == ["Tom", "Tripod"])
        let sliced = FetchDescriptor<Animal>(sortBy: [SortDescriptor(\.name)])
        var page = sliced
        page.fetchOffset = 1
        page.fetchLimit = 2
        #expect(try context.fetch(page).map(\.name) == ["Rex", "Tom"])
        let pugs = try context.fetch(
            FetchDescriptor<Dog>(predicate: #Predicate { $0.breed == "pug" }))
        #expect(pugs.map(\.name) == ["Tripod"])
        let outdoor = try context.fetch(FetchDescriptor<Cat>(predicate: #Predicate { !$0.indoor }))
        #expect(outdoor.map(\.name) == ["Tom"])
        // Pending changes take part too.
        let dog = try #require(pugs.first)
        dog.legs = 4
        #expect(
            try context.fetch(FetchDescriptor<Animal>(predicate: #Predicate { $0.legs == 4 }))
                .map(\.name).sorted() == ["Rex", "Tom", "Tripod"])
    }

    @Test func aRelationshipToTheBaseClassHoldsAnySubclassAcrossReopen() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open([Animal.self, Dog.self, Cat.self, Keeper.self])
            let context = container.mainContext
            zoo(context)
            try context.save()
            let tom = try #require(
                try context.fetch(FetchDescriptor<Cat>()).first)
            let keeper = Keeper()
            keeper.name = "Kim"
            context.insert(keeper)
            keeper.favourite = tom
            try context.save()
            // Keys of the hierarchy are one sequence: no dog, cat or animal shares one.
            let keys = try context.fetch(FetchDescriptor<Animal>()).map(
                \.persistentModelID.primaryKey)
            #expect(Set(keys).count == 4)
        }
        let container = try fixture.open([Animal.self, Dog.self, Cat.self, Keeper.self])
        let keeper = try #require(try container.mainContext.fetch(FetchDescriptor<Keeper>()).first)
        let favourite = try #require(keeper.favourite)
        #expect(favourite is Cat && favourite.name == "Tom")
        let byFavourite = try container.mainContext.fetch(
            FetchDescriptor<Keeper>(predicate: #Predicate { $0.favourite?.name == "Tom" }))
        #expect(byFavourite.count == 1)
    }

    @Test func theSchemaRecordsTheHierarchy() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open([Animal.self, Dog.self, Cat.self])
            #expect(container.schema.entity(named: "Dog")?.superentity == "Animal")
            #expect(container.schema.entity(named: "Cat")?.superentity == "Animal")
            #expect(container.schema.entity(named: "Animal")?.superentity == nil)
        }
        let reopened = try ModelContainer(schema: nil, at: fixture.url)
        #expect(reopened.schema.entity(named: "Dog")?.superentity == "Animal")
        #expect(reopened.schema.entities.map(\.name).sorted() == ["Animal", "Cat", "Dog"])
    }

    @Test func aManagerIsAnEmployeeOfTheBaseFetch() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([StaffMember.self, StaffManager.self])
        let context = container.mainContext
        let ann = StaffMember()
        ann.name = "Ann"
        ann.designation = "Engineer"
        ann.salary = 100
        let mia = StaffManager()
        mia.name = "Mia"
        mia.designation = "Engineer"
        mia.salary = 300
        mia.reports = 5
        context.insert(ann)
        context.insert(mia)
        try context.save()
        let engineers = try ModelContext(container).fetch(
            FetchDescriptor<StaffMember>(
                predicate: #Predicate { $0.designation == "Engineer" },
                sortBy: [SortDescriptor(\.salary, order: .reverse)]))
        #expect(engineers.map(\.name) == ["Mia", "Ann"])
        #expect((engineers.first as? StaffManager)?.reports == 5)
        #expect(
            try ModelContext(container).fetch(
                FetchDescriptor<StaffManager>(predicate: #Predicate { $0.reports > 1 })
            ).map(\.name) == ["Mia"])
        // Batch operations on the base class reach the subclass too.
        #expect(
            try context.delete(model: StaffMember.self, where: #Predicate { $0.salary > 200 }) == 1)
        #expect(try ModelContext(container).fetch(FetchDescriptor<StaffManager>()).isEmpty)
    }
}

/// What a hierarchy refuses: a superentity that is not there, or one that changes.
@MainActor @Suite struct InheritanceRefusalTests {
    @Test func aSuperentityOutsideTheSchemaOrMissingItsAttributesIsRefused() {
        let dog = Entity(
            name: "Dog", attributes: [AttributeDescription("name", .string)],
            superentity: "Animal")
        #expect(throws: LogbookError.self) { try Schema([dog]).validate() }
        let animal = Entity(
            name: "Animal",
            attributes: [
                AttributeDescription("name", .string), AttributeDescription("legs", .integer),
            ])
        #expect(throws: LogbookError.self) { try Schema([animal, dog]).validate() }
        var complete = dog
        complete.attributes.append(AttributeDescription("legs", .integer))
        #expect(throws: Never.self) { try Schema([animal, complete]).validate() }
    }

    /// A store of `Dog` alone (no superentity) joins Animal's hierarchy when opened with both
    /// (`JoinedHierarchyTests` has the store written before inheritance).
    @Test func anEntityThatGainsASuperentityJoinsTheHierarchy() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        do {
            let container = try fixture.open([Dog.self])
            let rex = Dog()
            rex.name = "Rex"
            container.mainContext.insert(rex)
            try container.mainContext.save()
        }
        let container = try fixture.open([Animal.self, Dog.self])
        let all = try container.mainContext.fetch(FetchDescriptor<Animal>())
        #expect(all.map(\.name) == ["Rex"])
        #expect(all.first is Dog)
    }

    @Test func aStringPredicateThroughARelationshipToASuperentityIsRefused() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Animal.self, Dog.self, Keeper.self])
        #expect(throws: LogbookError.self) {
            _ = try container.mainContext.fetch(
                entity: "Keeper", where: "favourite.name == %@", "Rex")
        }
    }
}

/// A pet of an owner: a relationship declared on the base class, inherited by the subclass.
class Pet: PersistentModel {
    @Attribute var name = ""
    @Relationship var owner: PetOwner?
    required init() {}
}

final class Puppy: Pet {
    @Attribute var tricks: Int64 = 0
    required init() {}
}

final class PetOwner: PersistentModel {
    @Attribute var name = ""
    @Relationship(deleteRule: .cascade, inverse: \Pet.owner) var pets: [Pet] = []
    init() {}
}

@MainActor @Suite struct InheritedRelationshipTests {
    /// Kim, owner of `pets` (named in order), saved in the main context.
    @discardableResult
    private func kim(owning pets: [Pet], names: [String], in container: ModelContainer) throws
        -> PetOwner
    {
        let context = container.mainContext
        let kim = PetOwner()
        kim.name = "Kim"
        context.insert(kim)
        for (pet, name) in zip(pets, names) { pet.name = name }
        kim.pets = pets
        try context.save()
        return kim
    }

    @Test func theInverseOfABaseClassRelationshipReachesSubclassObjects() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Pet.self, Puppy.self, PetOwner.self])
        try kim(owning: [Pet(), Puppy()], names: ["Goldie", "Rex"], in: container)
        let fresh = ModelContext(container)
        let owner = try #require(try fresh.fetch(FetchDescriptor<PetOwner>()).first)
        #expect(owner.pets.map(\.name).sorted() == ["Goldie", "Rex"])
        #expect(owner.pets.contains { $0 is Puppy })
        let rexAgain = try #require(try fresh.fetch(FetchDescriptor<Puppy>()).first)
        #expect(rexAgain.owner?.name == "Kim")
        // Cascade reaches the subclass's objects too.
        fresh.delete(owner)
        try fresh.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Pet>()) == 0)
    }

    @Test func aBatchDeleteOfTheOwnerCascadesToSubclassObjects() throws {
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Pet.self, Puppy.self, PetOwner.self])
        try kim(owning: [Puppy()], names: ["Rex"], in: container)
        #expect(try container.mainContext.delete(model: PetOwner.self) == 1)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Puppy>()) == 0)
    }

    @Test func observingTheInverseHearsASubclassObjectLetGo() throws {
        final class Fired: Sendable {
            let count = Atomic<Int>(0)
        }
        let fixture = LogbookFixture()
        defer { fixture.remove() }
        let container = try fixture.open([Pet.self, Puppy.self, PetOwner.self])
        let rex = Puppy()
        let owner = try kim(owning: [rex], names: ["Rex"], in: container)
        let fired = Fired()
        withObservationTracking {
            _ = owner.pets
        } onChange: {
            fired.count.add(1, ordering: .relaxed)
        }
        rex.owner = nil
        #expect(fired.count.load(ordering: .relaxed) == 1)
        #expect(owner.pets.isEmpty)
    }
}
