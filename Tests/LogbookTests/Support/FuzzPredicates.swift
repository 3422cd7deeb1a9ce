// The body of the `predicates` fuzz target (Tests/Fuzz/README.md): shared by the libFuzzer build,
// which compiles this file into the Logbook module with -D FUZZING, and by
// FuzzPredicatesCorpusTests, which replays the committed corpus on every `swift test`.
import Foundation

#if !FUZZING
    @testable import Logbook
#endif

/// The same Employees and Companies in two stores in memory: one with an index on every
/// attribute and a compound one, one with none beyond the to-one relationships (which are
/// always indexed). A string predicate must find the same objects, in the same order, in both:
/// the planner may choose any index, never a different answer.
final class FuzzPredicateStores {
    let indexed: ModelContext
    let plain: ModelContext

    init() throws {
        indexed = ModelContext(try Self.container(Self.schema(indexed: true)))
        plain = ModelContext(try Self.container(Self.schema(indexed: false)))
        for context in [indexed, plain] { try Self.fill(context) }
    }

    private static func container(_ schema: Schema) throws -> ModelContainer {
        let memory = ModelConfiguration(isStoredInMemoryOnly: true)
        return try ModelContainer(schema: schema, at: memory.url, options: memory.storeOptions)
    }

    static func schema(indexed: Bool) -> Schema {
        func attribute(_ name: String, _ type: AttributeType, optional: Bool = false)
            -> AttributeDescription
        {
            AttributeDescription(name, type, optional: optional, indexed: indexed)
        }
        return Schema([
            Entity(
                name: "Employee",
                attributes: [
                    attribute("name", .string), attribute("designation", .string, optional: true),
                    attribute("salary", .integer), attribute("score", .double),
                    attribute("active", .bool), attribute("joined", .date, optional: true),
                    attribute("photo", .data, optional: true),
                    attribute("token", .uuid, optional: true),
                ],
                relationships: [
                    RelationshipDescription("company", destination: "Company"),
                    RelationshipDescription("manager", destination: "Employee"),
                ],
                indexes: indexed ? [IndexDescription(["designation", "salary"])] : []),
            Entity(
                name: "Company",
                attributes: [attribute("name", .string), attribute("city", .string)]),
        ])
    }

    /// 4 companies and 48 employees with awkward values: equal, empty, missing, negative,
    /// extreme, NaN, ±0, accented and differently cased text.
    private static func fill(_ context: ModelContext) throws {
        let cities = ["Pune", "pune", "Zürich", ""]
        var companies: [any ModelObject] = []
        for (i, name) in ["Acme", "acme", "Ünïcode", "Acme Two"].enumerated() {
            companies.append(
                try context.insert(entity: "Company", values: ["name": name, "city": cities[i]]))
        }
        let names = ["Ann", "ann", "Änn", "Bo", "", "Zoë", "Ann Lee", "a\u{0}b", "Kevin", "KEVIN"]
        let designations: [String?] = ["Engineer", "engineer", nil, "Manager", "", "Ingénieur"]
        let salaries: [Int64] = [0, 1, -1, 1_000, 2_000_000, .max, .min, 1_000, 999, 5]
        let scores: [Double] = [0.5, -0.0, 0, .nan, .infinity, -.infinity, 1e300, -2.5, 1, 1000]
        var employees: [any ModelObject] = []
        for i in 0..<48 {
            let employee = try context.insert(
                entity: "Employee",
                values: [
                    "name": names[i % names.count],
                    "designation": designations[i % designations.count],
                    "salary": salaries[(i * 7) % salaries.count],
                    "score": scores[(i * 3) % scores.count],
                    "active": i % 3 == 0,
                    "joined": i % 4 == 0 ? nil : Date(timeIntervalSince1970: Double(i * 86_400)),
                    "photo": i % 5 == 0 ? nil : Data([UInt8(i), 0, 255]),
                    "token": i % 6 == 0
                        ? nil : UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E\(10 + i)"),
                ])
            if i % 5 != 4 {
                try employee.setValue(companies[i % companies.count], forKey: "company")
            }
            if i > 0 && i % 3 != 0 { try employee.setValue(employees[i / 2], forKey: "manager") }
            employees.append(employee)
        }
        try context.save()
    }
}

/// Input: `control: u8, rest`. `rest` as UTF-8 is a string predicate over Employee (key paths
/// through `company` and `manager` included); bits 0–1 of `control` rotate the arguments `%@`,
/// `%d` and `%K` take; bits 2–3 choose the sort (none, salary up, name down, score up) and bits
/// 4–7 a limit (0: none). Returns what broke: an error other than a `LogbookError`, or the two
/// stores disagreeing on the objects, their order or their count.
@discardableResult
func fuzzPredicates(_ input: [UInt8], stores: FuzzPredicateStores) -> [String] {
    guard let control = input.first else { return [] }
    let text = String(decoding: input.dropFirst(), as: UTF8.self)
    var arguments: [Any?] = [
        Int64(1_000), "Ann", nil, [Int64(1), Int64(5), Int64(-1)], "salary", 2.5, true,
        Date(timeIntervalSince1970: 86_400 * 7), ["Engineer", "Manager"], "company.name",
    ]
    let rotation = Int(control & 3) * 3
    arguments = Array(arguments[rotation...] + arguments[..<rotation])
    let sorts: [[(key: String, ascending: Bool)]] = [
        [], [("salary", true)], [("name", false)], [("score", true)],
    ]
    let limit = Int(control >> 4)
    var problems: [String] = []
    func run(_ context: ModelContext) -> Result<([String], Int), Error> {
        Result {
            var descriptor = EntityFetchDescriptor(
                entityName: "Employee",
                predicate: try StringPredicate(format: text, arguments: arguments),
                sortBy: sorts[Int(control >> 2) & 3])
            if limit > 0 { descriptor.fetchLimit = limit }
            let objects = try context.fetch(descriptor).map { $0.persistentModelID.description }
            let count = try context.fetchCount(descriptor)
            return (objects, count)
        }
    }
    switch (run(stores.indexed), run(stores.plain)) {
    case (.success(let a), .success(let b)):
        if a.0 != b.0 { problems.append("indexed found \(a.0), unindexed \(b.0)") }
        if a.1 != a.0.count { problems.append("indexed count \(a.1) for \(a.0.count) objects") }
        if b.1 != b.0.count { problems.append("unindexed count \(b.1) for \(b.0.count) objects") }
    case (.failure(let a), .failure(let b)):
        for error in [a, b] where !(error is LogbookError) {
            problems.append("not a LogbookError: \(error)")
        }
    case (.success(let a), .failure(let b)):
        problems.append("indexed found \(a.0), unindexed threw \(b)")
    case (.failure(let a), .success(let b)):
        problems.append("indexed threw \(a), unindexed found \(b.0)")
    }
    return problems
}
