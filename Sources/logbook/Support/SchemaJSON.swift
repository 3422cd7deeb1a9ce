import Logbook

/// The schema as JSON, for the first line of a JSON Lines export (so `import` can create a new
/// store with it): `{"version":1,"entities":[{"name":…,"attributes":[{"name":…,"type":"String",
/// "optional":false,"indexed":false,"unique":false,"default":null}]}]}`. An entity with
/// relationships also has `"relationships":[{"name":…,"destination":…,"toMany":false,
/// "inverse":… or null,"deleteRule":"nullify"}]` (or `"cascade"`, `"deny"`), plus
/// `"storesLinks":true` on the side of a many-to-many that stores the links. A sub-entity has
/// `"superentity":…` after its name. A searchable attribute also has `"searchable":true`.
enum SchemaJSON {
    /// Encodes `schema`.
    static func encode(_ schema: Schema) -> String {
        let entities = schema.entities.map { entity in
            let attributes = entity.attributes.map { a in
                "{\"name\":\(Formatting.quoted(a.name)),\"type\":\(Formatting.quoted(a.type.description)),"
                    + "\"optional\":\(a.isOptional),\"indexed\":\(a.isIndexed),"
                    + "\"unique\":\(a.isUnique),\"default\":\((a.defaultValue ?? .null).text(as: .json))"
                    + detail(a) + (a.isSearchable ? ",\"searchable\":true}" : "}")
            }
            var text =
                "{\"name\":\(Formatting.quoted(entity.name)),"
                + (entity.superentity.map { "\"superentity\":\(Formatting.quoted($0))," } ?? "")
                + "\"attributes\":["
                + attributes.joined(separator: ",") + "]"
            if !entity.relationships.isEmpty {
                let relationships = entity.relationships.map { r in
                    "{\"name\":\(Formatting.quoted(r.name)),"
                        + "\"destination\":\(Formatting.quoted(r.destination)),"
                        + "\"toMany\":\(r.isToMany),"
                        + "\"inverse\":\(r.inverse.map(Formatting.quoted) ?? "null"),"
                        + "\"deleteRule\":\"\(r.deleteRule)\""
                        + (r.storesLinks ? ",\"storesLinks\":true}" : "}")
                }
                text += ",\"relationships\":[" + relationships.joined(separator: ",") + "]"
            }
            return text + "}"
        }
        return "{\"version\":\(schema.version),\"entities\":[" + entities.joined(separator: ",")
            + "]}"
    }

    /// `,"declaredType":…,"typeName":…,"members":[…]` for an attribute of a type schema
    /// format 3 added or with a type name or members (so a schema without them keeps its text).
    private static func detail(_ a: AttributeDescription) -> String {
        guard
            a.type.rawValue > AttributeType.uuid.rawValue || a.typeName != nil
                || !a.members.isEmpty
        else { return "" }
        var text = ",\"declaredType\":\(Formatting.quoted(a.declaredType))"
        if let name = a.typeName { text += ",\"typeName\":\(Formatting.quoted(name))" }
        if !a.members.isEmpty {
            text +=
                ",\"members\":["
                + a.members.map { m in
                    "{\"name\":\(Formatting.quoted(m.name)),\"type\":\(Formatting.quoted(m.type.description)),"
                        + "\"optional\":\(m.isOptional)" + detail(m) + "}"
                }.joined(separator: ",") + "]"
        }
        return text
    }

    /// The type name and members of an attribute's (or member's) JSON.
    private static func decodeDetail(_ json: JSONValue, into attribute: inout AttributeDescription)
        throws
    {
        attribute.typeName = json["typeName"]?.string
        guard case .array(let members)? = json["members"] else { return }
        attribute.members = try members.map { m in
            guard let name = m["name"]?.string,
                let type = m["type"]?.string.flatMap(AttributeType.init(named:))
            else {
                throw CommandError.failed(
                    "a member of \(attribute.name) lacks a name or a known type")
            }
            var member = AttributeDescription(name, type, optional: m["optional"] == .bool(true))
            try decodeDetail(m, into: &member)
            return member
        }
    }

    /// Decodes what ``encode(_:)`` writes (the version is not kept: a store numbers its own).
    /// - Throws: ``CommandError/failed(_:)`` saying what is missing or wrong.
    static func decode(_ json: JSONValue) throws -> Schema {
        guard case .array(let list)? = json["entities"] else {
            throw CommandError.failed("the schema has no \"entities\" list")
        }
        return Schema(try list.map(entity))
    }

    private static func entity(_ json: JSONValue) throws -> Entity {
        guard let name = json["name"]?.string, case .array(let attributes)? = json["attributes"]
        else { throw CommandError.failed("an entity of the schema lacks a name or attributes") }
        var relationships: [JSONValue] = []
        if case .array(let list)? = json["relationships"] { relationships = list }
        return Entity(
            name: name,
            attributes: try attributes.map { a in
                guard let attributeName = a["name"]?.string,
                    let type = a["type"]?.string.flatMap(AttributeType.init(named:))
                else {
                    throw CommandError.failed(
                        "an attribute of \(name) lacks a name or a known type")
                }
                var attribute = AttributeDescription(
                    attributeName, type, optional: a["optional"] == .bool(true),
                    indexed: a["indexed"] == .bool(true), unique: a["unique"] == .bool(true),
                    searchable: a["searchable"] == .bool(true))
                try decodeDetail(a, into: &attribute)
                if let json = a["default"], json != .null {
                    guard let value = AttributeValue(json: json, as: attribute) else {
                        throw CommandError.failed(
                            "the default of \(name).\(attributeName) is not a \(attribute.declaredType)"
                        )
                    }
                    attribute.defaultValue = value
                }
                return attribute
            },
            relationships: try relationships.map { r in
                guard let relationshipName = r["name"]?.string,
                    let destination = r["destination"]?.string,
                    let rule = DeleteRule(named: r["deleteRule"]?.string ?? "nullify")
                else {
                    throw CommandError.failed(
                        "a relationship of \(name) lacks a name, a destination or a known delete rule"
                    )
                }
                return RelationshipDescription(
                    relationshipName, destination: destination, toMany: r["toMany"] == .bool(true),
                    inverse: r["inverse"]?.string, deleteRule: rule,
                    storesLinks: r["storesLinks"] == .bool(true))
            }, superentity: json["superentity"]?.string)
    }
}

extension DeleteRule {
    /// The rule called `name` (`nullify`, `cascade`, `deny`), or `nil`.
    init?(named name: String) {
        switch name {
        case "nullify": self = .nullify
        case "cascade": self = .cascade
        case "deny": self = .deny
        default: return nil
        }
    }
}
