import Foundation
import Logbook
import TestSupport
import Testing

/// A vehicle: the base class of the tools' hierarchy.
class Vehicle: PersistentModel {
    @Attribute var name = ""
    required init() {}
}

final class Truck: Vehicle {
    @Attribute var axles: Int64 = 2
    required init() {}
}

/// A depot whose flagship is any vehicle (a relationship to the base class).
final class Depot: PersistentModel {
    @Attribute var city = ""
    @Relationship var flagship: Vehicle?
    init() {}
}

/// The tools with a hierarchy: dump and export name each sub-entity's superentity, `verify`
/// accepts a reference to a base class that names a subclass's object, and import rebuilds it.
@Suite struct InheritanceToolTests {
    private func fleet(at path: String, depot withDepot: Bool = true) throws {
        let container = try ModelContainer(
            for: [Vehicle.self, Truck.self, Depot.self], at: URL(filePath: path))
        let context = ModelContext(container)
        let truck = Truck()
        truck.name = "Big"
        truck.axles = 3
        context.insert(truck)
        if withDepot {
            let depot = Depot()
            depot.city = "Pune"
            context.insert(depot)
            depot.flagship = truck
        }
        try context.save()
        try container.close()
    }

    @Test func dumpShowsTheHierarchyAndVerifyAcceptsASubclassTarget() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try fleet(at: path)
        let dump = try CLI.run(["dump", path])
        #expect(
            dump.stdout.contains("Truck: Vehicle(name: String, axles: Int64)"), "\(dump.stdout)")
        #expect(dump.stdout.contains("flagship: Vehicle?"), "\(dump.stdout)")
        let verify = try CLI.run(["verify", path])
        #expect(verify.status == 0, "\(verify.stdout)")
    }

    @Test func exportNamesTheSuperentityAndImportKeepsIt() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let source = dir.child("source")
        // (`import` does not read relationship fields.)
        try fleet(at: source, depot: false)
        let export = try CLI.run(["export", source])
        #expect(export.status == 0)
        #expect(
            export.stdout.contains("{\"name\":\"Truck\",\"superentity\":\"Vehicle\","),
            "\(export.stdout)")
        let file = dir.child("fleet.jsonl")
        try export.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let target = dir.child("target")
        let imported = try CLI.run(["import", target, file])
        #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr) \(export.stdout)")
        let container = try ModelContainer(
            for: [Vehicle.self, Truck.self, Depot.self], at: URL(filePath: target))
        #expect(container.schema.entity(named: "Truck")?.superentity == "Vehicle")
        let all = try ModelContext(container).fetch(FetchDescriptor<Vehicle>())
        #expect(all.map { ($0 as? Truck)?.axles } == [3])
    }
}
