import Logbook

/// Listing without holding the employees: the employees are decoded from their records
/// (``EmployeeRecordReader``), never built as objects. A query with no filter, sort or company
/// reads every record front to back in the log, holding no keys (see
/// ``LogbookEmployeeRepository/forEachRecordInKeyOrder(_:)``). Otherwise a query becomes the
/// primary keys of its matches, in order, from one predicate fetch of identifiers (which builds
/// no objects), and each employee is read by its key.
///
/// - Complexity: one pass over the Employee records to find the matches (sorting them if asked),
///   then one store read per match (or a second pass in log order). Memory: 8 bytes per match
///   for the keys (per late record for every employee), plus one batch.
extension LogbookEmployeeRepository {
    /// Employees read per batch.
    static let batchSize = 256
    /// Employees read by key between two releases of the store's mapped pages. Each read maps a
    /// block of pages around its table slot and another around its record (the kernel's
    /// fault-around: 64 KiB, or a whole folio of the page cache, 256 KiB and more on this
    /// kernel), so memory holds a few MiB of the store however many employees are read; a
    /// release costs one `madvise` per mapped file.
    static let readsBetweenReleases = 8

    func forEachEmployee(
        _ query: EmployeeQuery, counted: (Int) -> Void,
        _ body: (EmployeeRecord) throws(EmployeesError) -> Void
    ) throws(EmployeesError) {
        if query.isEveryEmployee {
            counted(try storeCall { try container.store.count(in: Employee.entityName) })
            return try forEachRecordInKeyOrder(body)
        }
        let matches = try self.matches(query)
        counted(matches.keys.count)
        try matches.forEach(in: self, body)
    }

    /// Plain words (`mar`, `kev park`) search names, each word as a prefix (as typed: `mar`
    /// finds "Maria"; a quoted phrase is taken as it is); anything else is a filter.
    func employeeWindow(filter: String?) throws(EmployeesError) -> any RowSource<EmployeeRecord> {
        var query = EmployeeQuery(filter: filter)
        if let filter, FilterText.isPlainWords(filter) {
            query.filter = nil
            query.search =
                filter.contains("\"")
                ? filter
                : filter.split(whereSeparator: \.isWhitespace).map {
                    $0.hasSuffix("*") ? String($0) : $0 + "*"
                }.joined(separator: " ")
        }
        let matches = try self.matches(query)
        return EmployeeWindow(repository: self, keys: matches.keys)
    }

    /// The matches of `query`, in its order.
    /// - Throws: ``EmployeesError/invalidFilter(filter:reason:)``, the company lookup errors.
    func matches(_ query: EmployeeQuery) throws(EmployeesError) -> EmployeeMatches {
        let company = try query.company.map { reference throws(EmployeesError) in
            try companyModel(reference)
        }
        let parsed = query.filter.map(FilterText.withoutDigitSeparators)
        let sort = query.sortKey.map { [(key: $0.rawValue, ascending: !query.descending)] } ?? []
        do {
            // The filter alone first, so that its mistakes are reported against its own text.
            let filter = try parsed.map { try StringPredicate(format: $0.text, arguments: []) }
            var keys: [UInt64]
            var residual: Company?
            if let words = query.search {
                // Best first, unless a sort orders them.
                keys = try searchKeys(words, filter: filter)
                if !sort.isEmpty {
                    let found = Set(keys)
                    keys = try identifierKeys(filter, sort: sort).filter(found.contains)
                } else if query.descending {
                    keys.reverse()
                }
                return EmployeeMatches(keys: keys, company: company)
            }
            if filter == nil && company == nil && query.sortKey == nil {
                keys = try recordReader().primaryKeysInLogOrder()
                if !keys.isSorted { keys.sort() }
                if query.descending { keys.reverse() }
                return EmployeeMatches(keys: keys)
            }
            if let company,
                let byCompany = try keysOfEmployees(of: company, filter: parsed?.text, sort: sort)
            {
                keys = byCompany
            } else {
                keys = try identifierKeys(filter, sort: sort)
                residual = company
            }
            if query.sortKey == nil {
                // The store's order of creation: ascending primary keys; `--desc` reverses it.
                if !keys.isSorted { keys.sort() }
                if query.descending { keys.reverse() }
            }
            return EmployeeMatches(keys: keys, company: residual)
        } catch let error as EmployeesError {
            throw error
        } catch {
            throw Self.translate(
                error, path: path, filter: query.filter, columns: parsed?.columns ?? [])
        }
    }

    /// The primary keys of the employees `predicate` matches, sorted by `sort`.
    func identifierKeys(_ predicate: StringPredicate?, sort: [(key: String, ascending: Bool)])
        throws -> [UInt64]
    {
        let descriptor = EntityFetchDescriptor(
            entityName: Employee.entityName, predicate: predicate, sortBy: sort)
        return try context.fetchIdentifiers(descriptor).map(\.primaryKey)
    }

    /// The records of the employees with primary keys `keys`, `nil` for those that no
    /// longer exist.
    func records(_ keys: some Collection<UInt64>) throws(EmployeesError) -> [EmployeeRecord?] {
        let reader = try recordReader()
        return try storeCall {
            var records: [EmployeeRecord?] = []
            records.reserveCapacity(keys.count)
            for key in keys {
                records.append(try reader.fields(primaryKey: key).map { try record($0) })
                readsSinceRelease += 1
                if readsSinceRelease == Self.readsBetweenReleases {
                    container.store.releaseMappedPages()
                    readsSinceRelease = 0
                }
            }
            return records
        }
    }

    /// Late records whose values ``forEachRecordInKeyOrder(_:)`` keeps from its first pass; the
    /// rest are read by key (which touches index and log pages all over a large store).
    static let keptLate = 1 << 15

    /// Calls `body` with the record of every employee, by increasing primary key
    /// (``PrimaryKeyOrder``: two passes over the log while few records come late).
    /// - Complexity: two passes over the log; memory 8 bytes a late record, and the values of
    ///   up to `keptLate` of them.
    func forEachRecordInKeyOrder(
        keptLate: Int = keptLate, _ body: (EmployeeRecord) throws(EmployeesError) -> Void
    ) throws(EmployeesError) {
        let reader = try recordReader()
        try storeCall {
            try PrimaryKeyOrder(keptLate: keptLate).forEach(
                in: Employee.entityName, of: container.store
            ) { key, value in
                // A damaged key is passed over, as the log-order readers do.
                guard PersistentIdentifier(entityName: Employee.entityName, storeKey: key) != nil
                else { return true }
                try body(try record(try reader.fields(key: key, value: value)))
                return true
            }
        }
    }

    /// The record of `fields`, with its company's link (looked up once per company).
    private func record(_ fields: EmployeeRecordReader.Fields) throws -> EmployeeRecord {
        fields.record(
            company: try fields.company.flatMap { try companyLinks.link(primaryKey: $0, self) })
    }

    /// The reader of the store's Employee records (made at the first call).
    /// - Throws: ``EmployeesError/store(_:)``.
    func recordReader() throws(EmployeesError) -> EmployeeRecordReader {
        if let reader = recordReaderIfMade { return reader }
        let reader = try storeCall { try EmployeeRecordReader(store: container.store) }
        recordReaderIfMade = reader
        return reader
    }

    /// `employee`'s record, beside `company`.
    func record(_ employee: Employee, primaryKey: UInt64, company: CompanyLink?)
        -> EmployeeRecord
    {
        EmployeeRecord(
            id: "\(Employee.entityName)/\(primaryKey)", name: employee.name,
            designation: employee.designation, salary: employee.salary, company: company)
    }
}

/// The matches of a query: primary keys in the query's order, and the company the employees
/// must still be checked against when the store could not filter by it.
struct EmployeeMatches {
    var keys: [UInt64]
    var company: Company?

    /// Calls `body` with each match's record, reading `repository` a batch at a time.
    func forEach(
        in repository: LogbookEmployeeRepository,
        _ body: (EmployeeRecord) throws(EmployeesError) -> Void
    ) throws(EmployeesError) {
        let link = company.map { repository.link($0) }
        var start = 0
        while start < keys.count {
            let end = min(start + LogbookEmployeeRepository.batchSize, keys.count)
            for case let record? in try repository.records(keys[start..<end])
            where link == nil || record.company?.id == link?.id {
                try body(record)
            }
            start = end
        }
    }
}

/// The employees of a fixed list of primary keys as a list screen's rows, read a page at a
/// time: holds the keys (8 bytes an employee) and the page last shown.
final class EmployeeWindow: RowSource {
    private let repository: LogbookEmployeeRepository
    private let keys: [UInt64]
    private let ascending: Bool
    private static let pageSize = 200
    private var page: (start: Int, rows: [EmployeeRecord]) = (0, [])

    init(repository: LogbookEmployeeRepository, keys: [UInt64]) {
        self.repository = repository
        self.keys = keys
        ascending = keys.isSorted
    }

    var count: Int { keys.count }

    func rows(_ positions: Range<Int>) throws(EmployeesError) -> [EmployeeRecord] {
        var rows: [EmployeeRecord] = []
        rows.reserveCapacity(positions.count)
        var position = positions.lowerBound
        while position < positions.upperBound {
            let offset = position - page.start
            if offset >= 0 && offset < page.rows.count {
                let end = min(positions.upperBound - page.start, page.rows.count)
                rows += page.rows[offset..<end]
                position = page.start + end
            } else {
                try load(pageAt: position - position % Self.pageSize)
            }
        }
        return rows
    }

    func position(of id: String) -> Int? {
        guard let identifier = PersistentIdentifier(id),
            identifier.entityName == Employee.entityName
        else { return nil }
        let key = identifier.primaryKey
        guard ascending else { return keys.firstIndex(of: key) }
        var (low, high) = (0, keys.count)
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? low : nil
    }

    /// Reads the page starting at `start`; an employee deleted since the keys were taken
    /// shows as such.
    private func load(pageAt start: Int) throws(EmployeesError) {
        let pageKeys = keys[start..<min(start + Self.pageSize, keys.count)]
        let records = try repository.records(pageKeys)
        page = (
            start,
            zip(pageKeys, records).map { key, record in
                record
                    ?? EmployeeRecord(
                        id: "\(Employee.entityName)/\(key)", name: "(deleted)", designation: "",
                        salary: 0)
            }
        )
    }
}

/// The company links shown beside employees, by the company's primary key, built once per
/// company while the repository lives (and forgotten when a company is renamed or deleted).
final class CompanyLinkCache {
    private var links: [UInt64: CompanyLink] = [:]

    /// The link of `company` (an object of any context of the repository's container).
    func link(_ company: Company, _ repository: LogbookEmployeeRepository) -> CompanyLink {
        guard case let id = company.persistentModelID, !id.isTemporary, case let key = id.primaryKey
        else {
            return repository.link(company)
        }
        if let known = links[key] { return known }
        let link = repository.link(company)
        links[key] = link
        return link
    }

    /// The link of the company with primary key `primaryKey`, `nil` if there is none.
    /// - Throws: what reading the company throws.
    func link(primaryKey: UInt64, _ repository: LogbookEmployeeRepository) throws -> CompanyLink? {
        if let known = links[primaryKey] { return known }
        let id = PersistentIdentifier(entityName: Company.entityName, primaryKey: primaryKey)
        guard let company = try repository.context.model(for: id, as: Company.self) else {
            return nil
        }
        let link = repository.link(company)
        links[primaryKey] = link
        return link
    }

    /// Forgets every link (after a rename or a deletion).
    func removeAll() { links.removeAll() }
}

extension Array where Element == UInt64 {
    /// Whether the keys ascend.
    var isSorted: Bool {
        var previous = UInt64.min
        for key in self {
            if key < previous { return false }
            previous = key
        }
        return true
    }
}
