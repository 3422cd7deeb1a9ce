import Logbook

/// One object's change in one save, as a before/after table: every field of an insert or a
/// delete, the changed fields of an update. To-one relationships (stored as the destination's
/// primary key) show as links.
struct ChangeDiff {
    var entity: Entity?
    var kind: HistoryChange.Kind
    /// The stored fields before the save (`nil`: none, or not known).
    var before: [(name: String, value: AttributeValue)]?
    /// The stored fields after the save (`nil` for a delete).
    var after: [(name: String, value: AttributeValue)]?
    /// For an update, the fields the save changed.
    var changed: [String]
    /// Whether the values before were asked for and are not in the history kept.
    var beforeUnknown = false

    /// The table.
    var html: HTML {
        let names: [String]
        switch kind {
        case .update: names = changed
        case .insert: names = (after ?? []).map(\.name)
        case .delete: names = (before ?? []).map(\.name)
        }
        guard !names.isEmpty else { return "<p class=\"note\">No field changed.</p>" }
        let beforeValues = Dictionary(
            (before ?? []).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let afterValues = Dictionary(
            (after ?? []).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let rows = HTML.join(
            names.map { name -> HTML in
                """
                <tr class="changed"><th scope="row">\(name)</th>\
                <td class="before">\(cell(name, beforeValues[name], side: .before))</td>\
                <td class="after">\(cell(name, afterValues[name], side: .after))</td></tr>
                """
            })
        return """
            <table class="grid diff"><thead><tr><th scope="col">Field</th><th scope="col">Before</th>\
            <th scope="col">After</th></tr></thead><tbody>\(rows)</tbody></table>
            """
    }

    private enum Side { case before, after }

    private func cell(_ name: String, _ value: AttributeValue?, side: Side) -> HTML {
        guard let value else {
            if side == .before && kind == .insert || side == .after && kind == .delete {
                return "<span class=\"none\">—</span>"
            }
            return beforeUnknown && side == .before
                ? "<span class=\"none\">not in the history kept</span>"
                : "<span class=\"none\">—</span>"
        }
        if let relationship = entity?.relationship(named: name), case .integer(let key) = value,
            key > 0
        {
            let target = "\(relationship.destination)/\(key)"
            return
                "<a href=\"\(StudioURL(["entity", relationship.destination, String(key)]))\">\(target)</a>"
        }
        return ValueText.full(value)
    }
}

extension ModelObject {
    /// The object's stored fields as a record holds them: the attributes, then each to-one
    /// relationship as the destination's primary key (or `null`).
    func storedFields(of entity: Entity) throws -> [(name: String, value: AttributeValue)] {
        try entity.attributes.map { ($0.name, try attributeValue(forKey: $0.name)) }
            + entity.relationships.filter { !$0.isToMany }.map { relationship in
                let related = (try value(forKey: relationship.name) as? any ModelObject)?
                    .persistentModelID
                let key = related.flatMap { Int64(exactly: $0.primaryKey) }
                return (relationship.name, key.map { .integer($0) } ?? .null)
            }
    }
}
