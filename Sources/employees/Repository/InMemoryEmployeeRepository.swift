/// An ``EmployeeRepository`` held in memory, for the screen's and the commands' unit tests.
///
/// Ids are `E1`, `E2`, … in the order employees are added and never reused. Filters use
/// ``EmployeeFilter``, the same syntax the real store's string predicates take.
final class InMemoryEmployeeRepository: EmployeeRepository {
    private var records: [EmployeeRecord] = []
    private var nextNumber = 1

    init(_ drafts: [EmployeeDraft] = []) {
        for draft in drafts { _ = add(draft) }
    }

    func add(_ draft: EmployeeDraft) -> EmployeeRecord {
        let record = EmployeeRecord(
            id: "E\(nextNumber)", name: draft.name, designation: draft.designation,
            salary: draft.salary)
        nextNumber += 1
        records.append(record)
        return record
    }

    func list(_ query: EmployeeQuery) throws(EmployeesError) -> [EmployeeRecord] {
        var matching = records
        if let text = query.filter {
            let filter = try EmployeeFilter(parsing: text)
            matching = matching.filter(filter.matches)
        }
        return matching.sorted(by: query.sortKey, descending: query.descending)
    }

    func employee(id: String) throws(EmployeesError) -> EmployeeRecord {
        guard let record = records.first(where: { $0.id == id }) else {
            throw .unknownEmployee(id: id)
        }
        return record
    }

    func update(id: String, with changes: EmployeeChanges) throws(EmployeesError)
        -> EmployeeRecord
    {
        guard let index = records.firstIndex(where: { $0.id == id }) else {
            throw .unknownEmployee(id: id)
        }
        let draft = changes.applied(to: records[index].draft)
        records[index].name = draft.name
        records[index].designation = draft.designation
        records[index].salary = draft.salary
        return records[index]
    }

    func delete(id: String) throws(EmployeesError) {
        guard let index = records.firstIndex(where: { $0.id == id }) else {
            throw .unknownEmployee(id: id)
        }
        records.remove(at: index)
    }
}
