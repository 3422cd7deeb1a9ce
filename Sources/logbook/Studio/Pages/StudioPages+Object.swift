import Foundation
import LogStore
import Logbook

/// The Object view: every attribute, relationships as links, and the object's own history.
extension StudioPages {
    /// Related objects listed for a to-many relationship (the grid has the rest).
    static let relatedShown = 20
    /// Saves of one object's history shown (its latest).
    static let objectSavesShown = 50

    /// `/entity/NAME/KEY`.
    func object(entity name: String, key text: String) throws -> HTTPResponse {
        let entity = try entity(named: name)
        guard let key = UInt64(text), String(key) == text, key > 0 else {
            throw StudioError.notFound("\"\(text)\" is not a primary key (a whole number from 1)")
        }
        let asOf = try pastToken()
        let id = PersistentIdentifier(entityName: entity.name, primaryKey: key)
        let sections = try withContext(asOf: asOf) { context, _ -> HTML in
            guard let object = try context.model(for: id) else {
                throw StudioError.notFound(
                    "no object \(id.description)" + (asOf == nil ? "" : " at that point in history")
                )
            }
            return try attributeTable(entity, object, editable: asOf == nil && session.writable)
                + relationshipList(entity, object, context, asOf: asOf)
        }
        let past: HTML =
            asOf.map { pastBanner($0, now: StudioURL(["entity", entity.name, text])) } ?? .empty
        let delete: HTML =
            session.writable && asOf == nil
            ? """
            <form class="write danger" method="post" action="\(StudioURL(["entity", entity.name, text, "delete"]))" \
            data-confirm="Delete \(id.description)? Its delete rules apply.">
            <button type="submit">Delete \(id.description)</button>
            </form>
            """ : .empty
        let history: HTML =
            asOf == nil
            ? try objectHistory(entity, id)
            : """
            <p><a href="\(StudioURL(["entity", entity.name, text]))">This object now, with its history</a></p>
            """
        return document(
            title: id.description, section: .objects, live: true, past: asOf != nil,
            body: """
                <p class="crumbs"><a href="\(StudioURL(["entity", entity.name], [("asof", asOf?.description)]))">\(entity.name)</a> ›</p>
                <h1>\(id.description)</h1>
                \(past)\(sections)\(delete)\(history)
                """)
    }

    /// Name, type and value of every attribute, with an edit form each when writable.
    private func attributeTable(_ entity: Entity, _ object: any ModelObject, editable: Bool) throws
        -> HTML
    {
        let rows = HTML.join(
            try entity.attributes.map { attribute -> HTML in
                let value = try object.attributeValue(forKey: attribute.name)
                let flags = [
                    attribute.isOptional ? "optional" : nil, attribute.isIndexed ? "indexed" : nil,
                    attribute.isUnique ? "unique" : nil,
                ].compactMap { $0 }.joined(separator: ", ")
                let edit: HTML = editable ? editForm(entity, object, attribute, value) : .empty
                return """
                    <tr><th scope="row">\(attribute.name)</th><td class="type">\(attribute.type.description)\
                    \(flags.isEmpty ? "" : " (\(flags))")</td><td class="value">\(ValueText.full(value))</td>\(edit)</tr>
                    """
            })
        return """
            <table class="grid attributes"><caption>Attributes</caption>
            <thead><tr><th scope="col">Attribute</th><th scope="col">Type</th><th scope="col">Value</th>\
            \(editable ? "<th scope=\"col\">Edit</th>" : "")</tr></thead>
            <tbody>\(rows)</tbody></table>
            """
    }

    /// A form that sets one attribute (through the object layer, one save).
    private func editForm(
        _ entity: Entity, _ object: any ModelObject, _ attribute: AttributeDescription,
        _ value: AttributeValue
    ) -> HTML {
        let id = object.persistentModelID
        let field = "edit-\(attribute.name)"
        let clear: HTML =
            attribute.isOptional
            ? " <label><input type=\"checkbox\" name=\"nil\" value=\"1\"\(value.isNull ? " checked" : "")> nil</label>"
            : .empty
        return """
            <td><form class="write edit" method="post" action="\(StudioURL(["entity", entity.name, String(id.primaryKey), "edit"]))">\
            <input type="hidden" name="attribute" value="\(attribute.name)">\
            <label class="visually-hidden" for="\(field)">New \(attribute.name)</label>\
            <input id="\(field)" name="value" value="\(ValueText.editable(value))">\(clear) \
            <button type="submit">Save</button></form></td>
            """
    }

    /// To-one relationships as links; to-many ones as a count, the first few, and a link to
    /// the grid of all of them.
    private func relationshipList(
        _ entity: Entity, _ object: any ModelObject, _ context: ModelContext, asOf: HistoryToken?
    ) throws -> HTML {
        guard !entity.relationships.isEmpty else { return .empty }
        let asof = asOf?.description
        let items = HTML.join(
            try entity.relationships.map { relationship -> HTML in
                let rule = "\(relationship.deleteRule)"
                let inverse = relationship.inverse.map { ", inverse \($0)" } ?? ""
                let label: HTML =
                    "<strong>\(relationship.name)</strong> <span class=\"type\">\(relationship.isToMany ? "to-many" : "to-one") \(relationship.destination)\(inverse), delete rule \(rule)</span>: "
                guard relationship.isToMany else {
                    guard
                        let related =
                            (try object.value(forKey: relationship.name) as? any ModelObject)?
                            .persistentModelID
                    else {
                        return "<li>\(label)<span class=\"null\">nil</span></li>"
                    }
                    return
                        "<li>\(label)<a href=\"\(StudioURL(["entity", related.entityName, String(related.primaryKey)], [("asof", asof)]))\">\(related.description)</a></li>"
                }
                let (count, first, all) = try toMany(relationship, of: object, context, asOf: asOf)
                let links = HTML.join(
                    first.map {
                        "<li><a href=\"\(StudioURL(["entity", $0.entityName, String($0.primaryKey)], [("asof", asof)]))\">\($0.description)</a></li>"
                    })
                let more: HTML =
                    all.map { " <a href=\"\($0)\">all \(count) in the grid</a>" } ?? .empty
                return
                    "<li>\(label)\(count) \(count == 1 ? "object" : "objects").\(more)<ul>\(links)</ul></li>"
            })
        return
            "<section aria-labelledby=\"rel-title\"><h2 id=\"rel-title\">Relationships</h2><ul class=\"relationships\">\(items)</ul></section>"
    }

    /// The count of a to-many relationship's objects, the first few, and the grid URL of all of
    /// them (through the inverse, as a filter, when there is one).
    private func toMany(
        _ relationship: RelationshipDescription, of object: any ModelObject,
        _ context: ModelContext,
        asOf: HistoryToken?
    ) throws -> (Int, [PersistentIdentifier], StudioURL?) {
        guard let inverse = relationship.inverse else {
            let related = (try object.value(forKey: relationship.name) as? [any ModelObject]) ?? []
            return (related.count, related.prefix(Self.relatedShown).map(\.persistentModelID), nil)
        }
        let id = object.persistentModelID
        let predicate = try StringPredicate(format: "%K == %@", arguments: [inverse, id])
        var descriptor = EntityFetchDescriptor(
            entityName: relationship.destination, predicate: predicate)
        let count = try context.fetchCount(descriptor)
        descriptor.fetchLimit = Self.relatedShown
        let first = try context.fetchIdentifiers(descriptor).sorted {
            $0.primaryKey < $1.primaryKey
        }
        return (
            count, first,
            StudioURL(
                ["entity", relationship.destination],
                [("via", inverse), ("of", String(id.primaryKey)), ("asof", asOf?.description)])
        )
    }
}
