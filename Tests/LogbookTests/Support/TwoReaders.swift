import Foundation
import Logbook
import TestSupport
import Testing

/// Saves Ann (salary 100) in `fixture`'s store, then makes two contexts that both read her: the
/// start of every merge-policy scenario (`MergePolicyTests`, `ConcurrentDeleteMergeTests`).
@MainActor
func twoReaders(_ fixture: LogbookFixture) throws -> (
    ModelContainer, Employee, ModelContext, Employee, ModelContext
) {
    let container = try fixture.open()
    container.mainContext.insert(Employee(name: "Ann", salary: 100))
    try container.mainContext.save()
    let first = ModelContext(container)
    let second = ModelContext(container)
    let a = try #require(try first.fetch(FetchDescriptor<Employee>()).first)
    let b = try #require(try second.fetch(FetchDescriptor<Employee>()).first)
    return (container, a, first, b, second)
}
