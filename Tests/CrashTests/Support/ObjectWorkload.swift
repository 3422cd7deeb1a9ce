import Foundation
import LogStore
import Logbook
import TestSupport

/// The seed's ``Employee`` after a lightweight migration: the same entity with `level` added,
/// whose default fills it in for objects stored before it existed.
final class MigratedEmployee: PersistentModel {
    static var entityName: String { "Employee" }
    @Attribute var name = ""
    @Attribute(.indexed) var designation = ""
    @Attribute var salary: Int64 = 0
    @Attribute var level: Int64 = 1
    init() {}
}

/// The models before the migration, and after it.
var modelsBeforeMigration: [any PersistentModel.Type] {
    [Employee.self, Company.self, StaffedEmployee.self]
}
var migratedModels: [any PersistentModel.Type] {
    [MigratedEmployee.self, Company.self, StaffedEmployee.self]
}

/// What a store holds, object by object, as the migrated models read it: identifier →
/// `attribute=value` text, relationships by identifier. Before the migration every employee
/// reads with the default `level=1`.
typealias ObjectState = [PersistentIdentifier: String]

/// The text of one object in an ``ObjectState``.
enum ObjectRow {
    static func employee(
        _ name: String, _ designation: String, salary: Int64, level: Int64 = 1
    ) -> String {
        "name=\(name) designation=\(designation) salary=\(salary) level=\(level)"
    }

    static func company(_ name: String, employees: [PersistentIdentifier]) -> String {
        "name=\(name) employees=\(employees.sorted())"
    }

    static func staffed(_ name: String, salary: Int64, company: PersistentIdentifier?) -> String {
        "name=\(name) salary=\(salary) company=\(company?.description ?? "nil")"
    }
}

/// Every object of `container` (opened with ``migratedModels``), read in a fresh context.
/// - Throws: what fetching throws.
func objectState(of container: ModelContainer) throws -> ObjectState {
    let context = ModelContext(container)
    var state: ObjectState = [:]
    for employee in try context.fetch(FetchDescriptor<MigratedEmployee>()) {
        state[employee.persistentModelID] = ObjectRow.employee(
            employee.name, employee.designation, salary: employee.salary, level: employee.level)
    }
    for company in try context.fetch(FetchDescriptor<Company>()) {
        state[company.persistentModelID] = ObjectRow.company(
            company.name, employees: company.employees.map(\.persistentModelID))
    }
    for employee in try context.fetch(FetchDescriptor<StaffedEmployee>()) {
        state[employee.persistentModelID] = ObjectRow.staffed(
            employee.name, salary: employee.salary, company: employee.company?.persistentModelID)
    }
    return state
}

/// A short account of how `found` differs from `expected`.
func describeDifference(_ found: ObjectState, _ expected: ObjectState) -> String {
    let missing = Set(expected.keys).subtracting(found.keys).sorted()
    let extra = Set(found.keys).subtracting(expected.keys).sorted()
    let changed = expected.keys.filter { found[$0] != nil && found[$0] != expected[$0] }.sorted()
    var parts: [String] = []
    if !missing.isEmpty { parts.append("\(missing.count) missing, first \(missing.prefix(3))") }
    if !extra.isEmpty { parts.append("\(extra.count) unexpected, first \(extra.prefix(3))") }
    for id in changed.prefix(3) {
        parts.append("\(id) is \"\(found[id]!)\", not \"\(expected[id]!)\"")
    }
    return parts.isEmpty ? "same objects" : parts.joined(separator: "; ")
}

/// The object layer's workload, recorded: the seed's Employee flows, a save of 1,000 inserts,
/// relationship saves (with a cascading delete), a compaction and a save after it, a close, a
/// reopen with ``migratedModels`` and a save after the migration — with the objects each commit
/// leaves. Segments are 16 KiB, so the workload also seals segments and writes their hints, and
/// after the reopen appends to a segment whose hint covers only its start.
struct ObjectRecording {
    var trace: Trace
    /// The directory the workload ran in; the store is `root/store`.
    var root: String
    /// The objects after each commit, by sequence number (0: no store yet). Commits are saves
    /// and the schema records opening writes (which leave the objects as they were).
    var states: [UInt64: ObjectState]
    /// Saves that committed.
    var saves: Int

    /// Runs the workload in `root` (which must exist and be empty) and records it.
    init(root: String) throws {
        let recorder = RecordingFileSystem(root: root)
        let start = SimulatedDisk(recorder)
        let driver = ObjectWorkloadDriver(path: root + "/store", recorder: recorder)
        try driver.run()
        trace = Trace(events: recorder.events, start: start, acknowledged: 0, attempted: 0)
        self.root = root
        states = driver.states
        saves = driver.saves
    }
}

/// Runs the workload through a container on a ``RecordingFileSystem`` and keeps the model.
///
/// Before each commit it notes the sequence number about to be attempted; after each save (and
/// open, and close) returns it notes the sequence acknowledged, so each crash point knows which
/// states it may recover. Not thread-safe: one workload thread.
private final class ObjectWorkloadDriver {
    let url: URL
    let recorder: RecordingFileSystem
    var container: ModelContainer?
    /// The objects now, as the app expects them stored.
    var model: ObjectState = [:]
    private(set) var states: [UInt64: ObjectState] = [0: [:]]
    private(set) var saves = 0
    private var lastSequence: UInt64 = 0

    init(path: String, recorder: RecordingFileSystem) {
        url = URL(fileURLWithPath: path)
        self.recorder = recorder
    }

    /// The container's context, made when it opens.
    private(set) var context: ModelContext!

    /// Employees inserted by the workload's one large save: records over more than one 4 KiB
    /// page in the default tier, about ten pages in the long one.
    static let bulkInserts = TestTier.pick(quick: 250, long: 1_000)

    func run() throws {
        try open(modelsBeforeMigration)
        // The seed's flows: three employees; a raise; a deletion.
        let ann = Employee(name: "Ann", designation: "Engineer", salary: 2_000_000)
        let bob = Employee(name: "Bob", designation: "Designer", salary: 1_500_000)
        let cid = Employee(name: "Cid", designation: "Manager", salary: 2_500_000)
        for employee in [ann, bob, cid] { context.insert(employee) }
        try save { model in
            for employee in [ann, bob, cid] {
                model[employee.persistentModelID] = ObjectRow.employee(
                    employee.name, employee.designation, salary: employee.salary)
            }
        }
        ann.salary = 3_000_000
        try save {
            $0[ann.persistentModelID] = ObjectRow.employee("Ann", "Engineer", salary: 3_000_000)
        }
        let bobID = bob.persistentModelID
        context.delete(bob)
        try save { $0[bobID] = nil }
        // One save of many inserts: many sectors and pages, all or nothing.
        var bulk: [Employee] = []
        for i in 0..<Self.bulkInserts {
            let employee = Employee(
                name: "Bulk \(i)", designation: i % 3 == 0 ? "Engineer" : "Clerk",
                salary: Int64(1_000_000 + i))
            context.insert(employee)
            bulk.append(employee)
        }
        try save { model in
            for employee in bulk {
                model[employee.persistentModelID] = ObjectRow.employee(
                    employee.name, employee.designation, salary: employee.salary)
            }
        }
        // Relationships: two companies with staff; then one employee moves and the other
        // company is deleted, cascading to its staff, in one save.
        let acme = Company(name: "Acme")
        let globex = Company(name: "Globex")
        context.insert(acme)
        context.insert(globex)
        let dee = StaffedEmployee(name: "Dee", salary: 10, company: acme)
        let eve = StaffedEmployee(name: "Eve", salary: 20, company: acme)
        let fay = StaffedEmployee(name: "Fay", salary: 30, company: globex)
        for employee in [dee, eve, fay] { context.insert(employee) }
        let ids = (
            acme: acme.persistentModelID, globex: globex.persistentModelID,
            dee: dee.persistentModelID, eve: eve.persistentModelID, fay: fay.persistentModelID
        )
        try save { model in
            model[ids.acme] = ObjectRow.company("Acme", employees: [ids.dee, ids.eve])
            model[ids.globex] = ObjectRow.company("Globex", employees: [ids.fay])
            model[ids.dee] = ObjectRow.staffed("Dee", salary: 10, company: ids.acme)
            model[ids.eve] = ObjectRow.staffed("Eve", salary: 20, company: ids.acme)
            model[ids.fay] = ObjectRow.staffed("Fay", salary: 30, company: ids.globex)
        }
        eve.company = globex
        context.delete(acme)
        try save { model in
            model[ids.acme] = nil
            model[ids.dee] = nil
            model[ids.globex] = ObjectRow.company("Globex", employees: [ids.eve, ids.fay])
            model[ids.eve] = ObjectRow.staffed("Eve", salary: 20, company: ids.globex)
        }
        // Compaction drops the records the update and the deletes left dead.
        try compact()
        // A save into the segment compaction started: closing writes that segment's hint, and
        // after the reopen the segment grows past what its hint covers.
        fay.salary = 35
        try save { $0[ids.fay] = ObjectRow.staffed("Fay", salary: 35, company: ids.globex) }
        let cidID = cid.persistentModelID
        try close()
        // The migration: reopening writes schema version 2; then a save that uses `level`.
        try open(migratedModels)
        let migratedCid = try context.model(for: cidID, as: MigratedEmployee.self)!
        migratedCid.level = 2
        migratedCid.salary = 2_600_000
        let gus = MigratedEmployee()
        gus.name = "Gus"
        gus.designation = "Engineer"
        gus.salary = 1_800_000
        gus.level = 3
        context.insert(gus)
        try save { model in
            model[cidID] = ObjectRow.employee("Cid", "Manager", salary: 2_600_000, level: 2)
            model[gus.persistentModelID] = ObjectRow.employee(
                "Gus", "Engineer", salary: 1_800_000, level: 3)
        }
        try close()
    }

    /// Opens a container for `types`; opening may commit a schema record.
    func open(_ types: [any PersistentModel.Type]) throws {
        var options = LogStoreOptions()
        options.fileSystem = recorder
        // Small enough that the 1,000-object save seals a segment and later saves start more.
        options.segmentSize = 16 << 10
        recorder.attempt(lastSequence + 1)
        container = try ModelContainer(for: types, at: url, options: options)
        context = ModelContext(container!)
        try committed(container!.store.lastSequence)
    }

    /// Saves the context, after applying the same changes to the model.
    func save(_ changes: (inout ObjectState) -> Void) throws {
        changes(&model)
        recorder.attempt(lastSequence + 1)
        try context.save()
        try committed(container!.store.lastSequence)
        saves += 1
    }

    /// Compacts the sealed segments; the store is synced when it returns.
    func compact() throws {
        _ = try container!.store.compact()
        recorder.acknowledge(lastSequence)
    }

    func close() throws {
        try container!.close()
        container = nil
        context = nil
        recorder.acknowledge(lastSequence)
    }

    /// Notes that every commit up to `sequence` is durable and leaves ``model``.
    /// - Throws: ``UnexpectedCommits`` if the call that returned made more than one commit (the
    ///   model would not know what the commits between hold), or none though the objects changed.
    private func committed(_ sequence: UInt64) throws {
        guard
            sequence == lastSequence + 1 || (sequence == lastSequence && states[sequence] == model)
        else {
            throw UnexpectedCommits(from: lastSequence + 1, to: sequence)
        }
        states[sequence] = model
        lastSequence = sequence
        recorder.acknowledge(sequence)
    }
}

/// A save or an open that made more than one commit, or a save that changed objects and made
/// none: a save is meant to be exactly one commit.
struct UnexpectedCommits: Error, CustomStringConvertible {
    var from: UInt64
    var to: UInt64
    var description: String {
        to < from
            ? "a save that changed objects made no commit"
            : "one call made commits \(from) to \(to)"
    }
}
