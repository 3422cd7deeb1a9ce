import Logbook

/// Reads employees straight from the store's records, decoding each into an
/// ``EmployeeRecord`` without building an `Employee` object or a context: what `list` and the
/// list screen's pages use. The store holds what the repository's context does (every change
/// is saved at once), so the records are the objects' saved state.
///
/// Made after the container has opened (and migrated) the store, from its current schema.
/// Not thread-safe (it is the repository's).
struct EmployeeRecordReader {
    private let store: LogStore
    private let decoder: RecordDecoder
    private let fieldReader: EntityFieldReader
    /// The positions of the four fields among an Employee record's decoded fields.
    private let name: Int
    private let designation: Int
    private let salary: Int
    private let company: Int?

    /// A reader of `store`'s Employee records.
    /// - Throws: what ``RecordDecoder/init(store:)`` throws (a store without the schema).
    init(store: LogStore) throws {
        self.store = store
        decoder = try RecordDecoder(store: store)
        guard let entity = decoder.schema.entity(named: Employee.entityName),
            let fieldReader = EntityFieldReader(decoder, entity: Employee.entityName)
        else {
            throw LogbookError.unknownEntity(Employee.entityName)
        }
        self.fieldReader = fieldReader
        let fields =
            entity.attributes.map(\.name) + entity.relationships.filter(\.isStored).map(\.name)
        guard let name = fields.firstIndex(of: "name"),
            let designation = fields.firstIndex(of: "designation"),
            let salary = fields.firstIndex(of: "salary")
        else { throw LogbookError.unknownEntity(Employee.entityName) }
        self.name = name
        self.designation = designation
        self.salary = salary
        company = fields.firstIndex(of: "company")
    }

    /// One employee's fields as its record holds them, and its company's primary key.
    struct Fields: Sendable {
        var primaryKey: UInt64
        var name = ""
        var designation = ""
        var salary: Int64 = 0
        var company: UInt64?

        /// The record, beside `company` (the link of ``company``, if any).
        func record(company link: CompanyLink?) -> EmployeeRecord {
            EmployeeRecord(
                id: Self.id(primaryKey), name: name, designation: designation, salary: salary,
                company: link)
        }

        /// `Employee/<key>`, made without string interpolation (it is made for every row).
        static func id(_ key: UInt64) -> String {
            var digits = 1
            var rest = key
            while rest >= 10 {
                rest /= 10
                digits += 1
            }
            // Exactly the capacity: up to 15 bytes make a small string, with no allocation.
            return String(unsafeUninitializedCapacity: prefix.count + digits) { buffer in
                for (i, byte) in prefix.enumerated() { buffer[i] = byte }
                var rest = key
                var position = prefix.count + digits
                repeat {
                    position -= 1
                    buffer[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                } while rest > 0
                return prefix.count + digits
            }
        }

        private static let prefix = Array("\(Employee.entityName)/".utf8)
    }

    /// Decodes the Employee record `value` under `key`.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``.
    func fields(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> Fields {
        var fields = Fields(primaryKey: 0)
        let (name, designation, salary, company) = (
            self.name, self.designation, self.salary, self.company ?? -1
        )
        fields.primaryKey = try decoder.decodeFields(
            keyspace: Employee.entityName, key: key, value: value
        ) { i, value in
            switch (i, value) {
            case (name, .string(let text)): fields.name = text
            case (designation, .string(let text)): fields.designation = text
            case (salary, .integer(let number)): fields.salary = number
            case (company, .integer(let key)): fields.company = UInt64(bitPattern: key)
            default: break
            }
        }.primaryKey
        return fields
    }

    /// One employee's fields with its texts as UTF-8 bytes (not checked), valid during the call
    /// that passes them: what a table that copies them to its output reads.
    struct TextFields {
        var primaryKey: UInt64 = 0
        var name = UnsafeRawBufferPointer(start: nil, count: 0)
        var designation = UnsafeRawBufferPointer(start: nil, count: 0)
        var salary: Int64 = 0
        var company: UInt64?
    }

    /// Decodes the Employee record `value` under `key` and calls `body` with its fields: the
    /// texts are the record's own bytes where it is read in place (see ``EntityFieldReader``),
    /// no `String` built; otherwise those of the decoded strings.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``, what `body` throws.
    func withTextFields<Result>(
        key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
        _ body: (TextFields) throws -> Result
    ) throws -> Result {
        var fields = TextFields()
        var decoded: (name: String?, designation: String?) = (nil, nil)
        let (name, designation, salary, company) = (
            self.name, self.designation, self.salary, self.company ?? -1
        )
        fields.primaryKey = try fieldReader.decode(key: key, value: value) { i, value in
            switch (i, value) {
            case (name, .utf8(let bytes)): fields.name = bytes
            case (name, .value(.string(let text))): decoded.name = text
            case (designation, .utf8(let bytes)): fields.designation = bytes
            case (designation, .value(.string(let text))): decoded.designation = text
            case (salary, .value(.integer(let number))): fields.salary = number
            case (company, .value(.integer(let key))): fields.company = UInt64(bitPattern: key)
            default: break
            }
        }.primaryKey
        guard decoded.name != nil || decoded.designation != nil else { return try body(fields) }
        var nameText = decoded.name ?? String(decoding: fields.name, as: UTF8.self)
        var designationText =
            decoded.designation ?? String(decoding: fields.designation, as: UTF8.self)
        return try nameText.withUTF8 { name in
            try designationText.withUTF8 { designation in
                fields.name = UnsafeRawBufferPointer(name)
                fields.designation = UnsafeRawBufferPointer(designation)
                return try body(fields)
            }
        }
    }

    /// The fields of the employee with primary key `primaryKey`, `nil` if there is none.
    /// - Throws: ``LogStoreError``, ``LogbookError/corruptRecord(entity:key:reason:)``.
    /// - Complexity: one hash lookup; the record is read in place.
    func fields(primaryKey: UInt64) throws -> Fields? {
        let key = PersistentIdentifier(entityName: Employee.entityName, primaryKey: primaryKey)
            .storeKey
        return try key.withUnsafeBytes { key in
            try store.withValue(forKey: key, in: Employee.entityName) { value in
                try fields(key: key, value: value)
            }
        }
    }

    /// The primary keys of every employee, in the order their records lie in the log (which
    /// is ascending for a store whose employees were never updated).
    /// - Throws: ``LogStoreError``.
    /// - Complexity: one pass over the Employee records' keys; 8 bytes an employee.
    func primaryKeysInLogOrder() throws -> [UInt64] {
        var keys: [UInt64] = []
        keys.reserveCapacity(try store.count(in: Employee.entityName))
        try forEachPrimaryKeyInLogOrder { key, _ in keys.append(key) }
        return keys
    }

    /// Calls `body` with the primary key of every employee, in log order (see
    /// ``primaryKeysInLogOrder()``), and a function that decodes its fields (during the call).
    /// - Throws: ``LogStoreError``, what `body` throws.
    func forEachPrimaryKeyInLogOrder(_ body: (UInt64, () throws -> Fields) throws -> Void)
        throws
    {
        try store.forEach(in: Employee.entityName) { key, value in
            guard
                let primaryKey = PersistentIdentifier(
                    entityName: Employee.entityName, storeKey: key)?.primaryKey
            else { return }
            try body(primaryKey) {
                try fields(key: key, value: value)
            }
        }
    }
}
