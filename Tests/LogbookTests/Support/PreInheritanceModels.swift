import Foundation
import Logbook

/// The zoo as a store written before inheritance held it: `Animal` and `Dog` are two unrelated
/// entities, each with its own keys, and a kennel refers to both. `PreInheritanceZoo.write(to:)`
/// made `Tests/Fixtures/PreInheritance.logbook`.
final class PreInheritanceAnimal: PersistentModel {
    static var entityName: String { "Animal" }
    @Attribute var name = ""
    @Attribute(.indexed) var legs: Int64 = 4
    init() {}
}

final class PreInheritanceDog: PersistentModel {
    static var entityName: String { "Dog" }
    @Attribute var name = ""
    @Attribute(.indexed) var legs: Int64 = 4
    @Attribute var breed = ""
    init() {}
}

final class PreInheritanceKennel: PersistentModel {
    static var entityName: String { "Kennel" }
    @Attribute var name = ""
    @Relationship var resident: PreInheritanceDog?
    @Relationship var mascot: PreInheritanceAnimal?
    init() {}
}

/// The kennel of today's model: the same entity, its relationships to the hierarchy.
final class Kennel: PersistentModel {
    @Attribute var name = ""
    @Relationship var resident: Dog?
    @Relationship var mascot: Animal?
    init() {}
}

enum PreInheritanceZoo {
    /// Writes the fixture: Animal/1 Ant (6 legs), Animal/2 Bee (6); Dog/1 Fido (deleted),
    /// Dog/2 Rex (collie), Dog/3 Tripod (3 legs, pug); Kennel/1 North (resident Tripod, mascot
    /// Bee), Kennel/2 South (Rex, Ant), Kennel/3 East (resident Fido, a reference left to an
    /// object that no longer exists). Animal/2 and Dog/2 share a key, as do /1 and /3.
    @MainActor static func write(to url: URL) throws {
        let container = try ModelContainer(
            for: [PreInheritanceAnimal.self, PreInheritanceDog.self, PreInheritanceKennel.self],
            at: url)
        let context = container.mainContext
        func animal(_ name: String) -> PreInheritanceAnimal {
            let animal = PreInheritanceAnimal()
            animal.name = name
            animal.legs = 6
            context.insert(animal)
            return animal
        }
        func dog(_ name: String, _ legs: Int64, _ breed: String) -> PreInheritanceDog {
            let dog = PreInheritanceDog()
            dog.name = name
            dog.legs = legs
            dog.breed = breed
            context.insert(dog)
            return dog
        }
        func kennel(_ name: String, _ resident: PreInheritanceDog, _ mascot: PreInheritanceAnimal?)
        {
            let kennel = PreInheritanceKennel()
            kennel.name = name
            context.insert(kennel)
            kennel.resident = resident
            kennel.mascot = mascot
        }
        let ant = animal("Ant")
        let bee = animal("Bee")
        let fido = dog("Fido", 4, "mutt")
        let rex = dog("Rex", 4, "collie")
        let tripod = dog("Tripod", 3, "pug")
        kennel("North", tripod, bee)
        kennel("South", rex, ant)
        kennel("East", fido, nil)
        try context.save()
        context.delete(fido)
        try context.save()
        try container.close()
    }
}
