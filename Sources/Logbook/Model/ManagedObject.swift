/// An object of an entity known only by name: the seeds' dynamic style.
///
/// ```swift
/// let kevin = try context.insert(entity: "Employee", values: ["name": "Kevin"])
/// kevin["salary"] = 10
/// try kevin.setValue("Engineer", forKey: "designation")
/// ```
/// Made only by a ``ModelContext`` (insert or fetch of an entity that has no class). Key-value
/// access comes from ``ModelObject``. Not thread-safe: use it on its context's thread.
public final class ManagedObject: ModelObject, CustomStringConvertible, CustomReflectable {
    /// Values in the entity's stored order.
    var values: [AttributeValue]
    /// The entity, fixed when the object is made.
    let binding: EntityBinding
    /// The context's object table while registered.
    private(set) var owner: ObjectTable?
    private(set) var entry: Int32 = -1

    init(values: [AttributeValue], binding: EntityBinding) {
        self.values = values
        self.binding = binding
    }

    func attach(_ table: ObjectTable?, entry: Int32) {
        owner = table
        self.entry = entry
    }

    /// The entity described by the schema.
    public var entity: Entity { binding.entity }

    /// `Employee/42 {name: "Kevin", …}`.
    public var description: String {
        let pairs = zip(binding.stored.attributes, values).map { "\($0.name): \($1)" }
            .joined(separator: ", ")
        let id = persistentModelID.description
        return "\(id) {\(pairs)}"
    }

    /// The entity's values by name.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: zip(binding.stored.attributes, values).map { ($0.name, $1 as Any) },
            displayStyle: .class)
    }
}
