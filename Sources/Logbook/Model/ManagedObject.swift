/// An object of an entity known only by name: the seeds' dynamic style.
///
/// ```swift
/// let kevin = try context.insert(entity: "Employee", values: ["name": "Kevin"])
/// kevin["salary"] = 10
/// try kevin.setValue("Engineer", forKey: "designation")
/// ```
/// Made only by a ``ModelContext`` (insert or fetch of an entity that has no class). Key-value
/// access comes from ``ModelObject``. Not thread-safe: use it on its context's thread.
public final class ManagedObject: ModelObject, CustomStringConvertible {
    /// Values in the entity's attribute order.
    var values: [AttributeValue]
    // Invariant: set once, right after init, by the context that makes the object.
    private(set) var backing: ModelBacking!

    init(values: [AttributeValue]) {
        self.values = values
    }

    func attach(_ backing: ModelBacking) { self.backing = backing }

    /// The entity described by the schema.
    public var entity: Entity { backing.binding.entity }

    /// `Employee/42 {name: "Kevin", …}`.
    public var description: String {
        let pairs = zip(entity.attributes, values).map { "\($0.name): \($1)" }.joined(
            separator: ", ")
        return "\(backing.identifier) {\(pairs)}"
    }
}
