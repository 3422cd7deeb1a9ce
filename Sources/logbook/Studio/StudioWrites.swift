import Foundation
import LogStore
import Logbook

/// The writes of `--write`: setting an attribute and deleting an object, each through the
/// object layer in a save of its own (validation, unique constraints, delete rules), and
/// compaction. Only routed when the store is open for writing, and only for a request that
/// carries the token in its header (``AccessGuard``).
struct StudioWrites {
    let app: StudioApp

    /// What saves from the studio record as their author.
    static let author = "logbook studio"

    /// Answers a `POST` to `path`.
    func handle(_ path: [String], _ request: HTTPRequest) throws -> HTTPResponse {
        if !request.body.isEmpty {
            let type = request.header("content-type")?.lowercased() ?? ""
            guard type.hasPrefix("application/x-www-form-urlencoded") else {
                return .text(415, "send the form as application/x-www-form-urlencoded\n")
            }
        }
        let response: HTTPResponse
        switch path.count {
        case 1 where path[0] == "compact":
            _ = try app.session.current.container.store.compact()
            response = .seeOther("/log")
        case 4 where path[0] == "entity" && path[3] == "edit":
            response = try edit(entity: path[1], key: path[2], request.formFields)
        case 4 where path[0] == "entity" && path[3] == "delete":
            response = try delete(entity: path[1], key: path[2])
        default:
            throw StudioError.notFound("no such action")
        }
        // Pages read after the redirect must see the save.
        try app.session.refresh()
        return response
    }

    /// Sets one attribute of one object from its text form, and saves.
    private func edit(entity name: String, key: String, _ fields: [(name: String, value: String)])
        throws -> HTTPResponse
    {
        let (entity, context, object) = try target(name, key)
        func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }
        guard let attributeName = field("attribute"),
            let attribute = entity.attributes.first(where: { $0.name == attributeName })
        else { throw StudioError(status: 422, message: "no such attribute of \(entity.name)") }
        let value: AttributeValue
        if field("nil") == "1" {
            guard attribute.isOptional else {
                throw StudioError(status: 422, message: "\(attribute.name) is not optional")
            }
            value = .null
        } else {
            guard let parsed = AttributeValue(text: field("value") ?? "", as: attribute.type) else {
                throw StudioError(
                    status: 422,
                    message: "\"\(field("value") ?? "")\" is not a valid \(attribute.type) value")
            }
            value = parsed
        }
        try saving(context) { try object.setValue(value, forKey: attribute.name) }
        return .seeOther(StudioURL(["entity", entity.name, key]).text)
    }

    /// Deletes one object (its relationships' delete rules apply), and saves.
    private func delete(entity name: String, key: String) throws -> HTTPResponse {
        let (entity, context, object) = try target(name, key)
        try saving(context) { context.delete(object) }
        return .seeOther(StudioURL(["entity", entity.name]).text)
    }

    /// The entity, a new context, and the object `key` of `name` in it.
    private func target(_ name: String, _ key: String) throws -> (
        Entity, ModelContext, any ModelObject
    ) {
        let container = app.session.current.container
        guard let entity = container.schema.entity(named: name) else {
            throw StudioError.notFound("no entity \"\(name)\"")
        }
        let context = ModelContext(container)
        context.author = Self.author
        guard let primaryKey = UInt64(key),
            let object = try context.model(
                for: PersistentIdentifier(entityName: entity.name, primaryKey: primaryKey))
        else { throw StudioError.notFound("no object \(entity.name)/\(key)") }
        return (entity, context, object)
    }

    /// Runs `change` and saves `context`; a change or save the object layer refuses is a 422
    /// with its message, and nothing is saved.
    private func saving(_ context: ModelContext, _ change: () throws -> Void) throws {
        do {
            try change()
            try context.save()
        } catch let error as LogbookError {
            context.rollback()
            throw StudioError(status: 422, message: error.description)
        }
    }
}
