import Logbook

/// The schema as JSON, for the first line of a JSON Lines export (so `import` can create a new
/// store with it): `{"version":1,"entities":[{"name":…,"attributes":[{"name":…,"type":"String",
/// "optional":false,"indexed":false,"unique":false,"default":null}]}]}`. An entity with
/// relationships also has `"relationships":[{"name":…,"destination":…,"toMany":false,
/// "inverse":… or null,"deleteRule":"nullify"}]` (or `"cascade"`, `"deny"`). A searchable
/// attribute also has `"searchable":true`.
enum SchemaJSON {
    /// Encodes `schema`.
    static func encode(_ schema: Schema) -> String {
        let entities = schema.entities.map { entity in
            let attributes = entity.attributes.map { a in
                "{\"name\":\(Formatting.quoted(a.name)),\"type\":\(Formatting.quoted(a.type.description)),"
                    + "\"optional\":\(a.isOptional),\"indexed\":\(a.isIndexed),"
                    + "\"unique\":\(a.isUnique),\"default\":\((a.defaultValue ?? .null).text(as: .json))"
                    + (a.isSearchable ? ",\"searchable\":true}" : "}")
            }
            var text =
                "{\"name\":\(Formatting.quoted(entity.name)),\"attributes\":["
                + attributes.joined(separator: ",") + "]"
            if !entity.relationships.isEmpty {
                let relationships = entity.relationships.map { r in
                    "{\"name\":\(Formatting.quoted(r.name)),"
                        + "\"destination\":\(Formatting.quoted(r.destination)),"
                        + "\"toMany\":\(r.isToMany),"
                        + "\"inverse\":\(r.inverse.map(Formatting.quoted) ?? "null"),"
                        + "\"deleteRule\":\"\(r.deleteRule)\"}"
                }
                text += ",\"relationships\":[" + relationships.joined(separator: ",") + "]"
            }
            return text + "}"
        }
        return "{\"version\":\(schema.version),\"entities\":[" + entities.joined(separator: ",")
            + "]}"
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
                var defaultValue: AttributeValue?
                if let json = a["default"], json != .null {
                    guard let value = AttributeValue(json: json, as: type) else {
                        throw CommandError.failed(
                            "the default of \(name).\(attributeName) is not a \(type)")
                    }
                    defaultValue = value
                }
                return AttributeDescription(
                    attributeName, type, optional: a["optional"] == .bool(true),
                    defaultValue: defaultValue, indexed: a["indexed"] == .bool(true),
                    unique: a["unique"] == .bool(true), searchable: a["searchable"] == .bool(true))
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
                    inverse: r["inverse"]?.string, deleteRule: rule)
            })
    }
}

extension AttributeType {
    /// The type called `name` (its ``description``: `String`, `Int64`, …), or `nil`.
    init?(named name: String) {
        guard let type = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = type
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

extension AttributeValue {
    /// Reads a value of `type` from its JSON form (``AttributeValue/TextFormat/json``); `nil` if
    /// `json` is not one. Integers convert to doubles; nothing else converts.
    init?(json: JSONValue, as type: AttributeType) {
        switch (json, type) {
        case (.null, _): self = .null
        case (.bool(let value), .bool): self = .bool(value)
        case (.number(let text), .integer), (.number(let text), .double):
            self.init(text: text, as: type)
        case (.string(let text), .double):
            // Only the non-finite doubles are strings.
            guard let value = Double(text), !value.isFinite else { return nil }
            self = .double(value)
        case (.string(let text), .string), (.string(let text), .date), (.string(let text), .data),
            (.string(let text), .uuid):
            self.init(text: text, as: type)
        default: return nil
        }
    }
}
