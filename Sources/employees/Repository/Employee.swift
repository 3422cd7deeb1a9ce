import Logbook

/// The app's model: the seed's `Employee` entity, stored by Logbook.
///
/// The entity name (`Employee`) names the store's keyspace and starts every id (`Employee/7`),
/// so it must stay stable.
final class Employee: PersistentModel {
    @Attribute var name = ""
    @Attribute(.indexed) var designation = ""
    @Attribute var salary: Int64 = 0

    init() {}
}
