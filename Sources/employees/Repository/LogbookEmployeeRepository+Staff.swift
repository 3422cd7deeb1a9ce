import Logbook

/// A company's employees, asked of the store through the relationship where Logbook can filter
/// on it, and counted in one pass over the employees where it cannot.
///
/// The relationship is spelled as Core Data spells it, `company == %@` with the company's
/// identifier. A Logbook that does not take that predicate says so with a typed error the
/// first time (an argument it does not accept, or an unknown attribute `company`); the
/// repository remembers the answer and from then on filters or counts the employees itself.
extension LogbookEmployeeRepository {
    /// Whether the store takes `company == %@` predicates, once known.
    enum RelationshipPredicates {
        case unknown, supported, unsupported
    }

    /// `body`'s result for the predicate "employees of `company`", joined to `filter` (a string
    /// predicate that parses on its own); `nil` if this Logbook cannot filter by company.
    func throughCompany<Result>(
        _ company: Company, filter: String? = nil, _ body: (StringPredicate) throws -> Result
    ) throws -> Result? {
        let id = company.persistentModelID
        guard relationshipPredicates != .unsupported, !id.isTemporary else { return nil }
        let format = filter.map { "(\($0)) AND company == %@" } ?? "company == %@"
        do {
            let result = try body(try StringPredicate(format: format, arguments: [id]))
            relationshipPredicates = .supported
            return result
        } catch let error as LogbookError where Self.refusesRelationship(error) {
            relationshipPredicates = .unsupported
            return nil
        }
    }

    /// The primary keys of `company`'s employees matching `filter`, sorted by `sort`; `nil`
    /// if this Logbook cannot filter by company.
    func keysOfEmployees(
        of company: Company, filter: String?, sort: [(key: String, ascending: Bool)]
    ) throws -> [UInt64]? {
        try throughCompany(company, filter: filter) { try identifierKeys($0, sort: sort) }
    }

    /// How many employees each of `companies` has: counts already known, else one count fetch
    /// per company, else (when Logbook cannot count through the relationship) one pass over
    /// every employee that counts them all.
    func staffCounts(of companies: [Company]) throws -> StaffCounts {
        for company in companies where staffCounts[company] == nil {
            guard
                let count = try throughCompany(
                    company, { try context.fetchCount(entityFetch(predicate: $0)) })
            else { break }
            staffCounts.set(company, count)
        }
        if companies.contains(where: { staffCounts[$0] == nil }) {
            var counts: [UInt64: Int] = [:]
            try context.enumerate(FetchDescriptor<Employee>(), batchSize: Self.batchSize) {
                if let key = $0.company?.persistentModelID.primaryKey {
                    counts[key, default: 0] += 1
                }
            }
            staffCounts = StaffCounts(complete: counts)
        }
        return staffCounts
    }

    /// An Employee fetch with `predicate`.
    func entityFetch(predicate: StringPredicate?) -> EntityFetchDescriptor {
        EntityFetchDescriptor(entityName: Employee.entityName, predicate: predicate)
    }

    /// Whether `error` is Logbook saying it cannot filter through the relationship `company`.
    private static func refusesRelationship(_ error: LogbookError) -> Bool {
        switch error {
        case .predicateSyntax, .unsupportedPredicate: return true
        case .unknownAttribute(_, let attribute): return attribute == "company"
        default: return false
        }
    }
}

/// Employees per company, by the company's primary key: what the store said, kept in step
/// with the repository's own saves. A company without a count has not been asked about yet,
/// unless the counts are complete (from a pass over every employee), when it has none.
struct StaffCounts {
    private var counts: [UInt64: Int] = [:]
    private var isComplete = false

    init() {}

    /// Counts of every company that has employees.
    init(complete counts: [UInt64: Int]) {
        self.counts = counts
        isComplete = true
    }

    /// `company`'s count, if known.
    subscript(company: Company) -> Int? {
        guard let key = Self.key(company) else { return 0 }
        return counts[key] ?? (isComplete ? 0 : nil)
    }

    mutating func set(_ company: Company, _ count: Int) {
        if let key = Self.key(company) { counts[key] = count }
    }

    /// One employee more (`delta` 1) or fewer (-1) in `company`, after a save.
    mutating func changed(_ company: Company?, by delta: Int) {
        guard let company, let count = self[company] else { return }
        set(company, count + delta)
    }

    /// After the company with primary key `deleted` was deleted, its employees moved to
    /// `target` (if any).
    mutating func companyDeleted(_ deleted: UInt64, movedTo target: Company?) {
        let moved = counts[deleted] ?? (isComplete ? 0 : nil)
        counts[deleted] = nil
        guard let target, let key = Self.key(target) else { return }
        if let moved, let count = self[target] {
            counts[key] = count + moved
        } else {
            isComplete = false
            counts[key] = nil
        }
    }

    private static func key(_ company: Company) -> UInt64? {
        let id = company.persistentModelID
        return id.isTemporary ? nil : id.primaryKey
    }
}
