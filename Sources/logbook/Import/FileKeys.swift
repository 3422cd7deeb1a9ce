import Foundation
import Logbook

/// The keys of an import's objects and references (FORMAT.md Appendix, "`logbook export
/// --format jsonl`, read by `logbook import`").
///
/// An object with an `_id` gets the key `_id` + the last key its hierarchy had before the
/// import, so a file imported into an empty store keeps its keys; a reference to key `n` of
/// entity D (a to-one's key, a link list's keys) becomes `n` + the last key of D's hierarchy:
/// references name the file's objects, whatever order they come in. An object without `_id`
/// takes the next key of its sequence. Two objects of one hierarchy that would share a key, and
/// a reference to a key no object of the file has, are refused with the line.
///
/// A CSV file holds the objects of one entity: a reference from it to another hierarchy names
/// an object already in the store by its key, as export wrote it (import the destination's file
/// first), and one to a key the store lacks is refused with the line.
///
/// Memory: about 16 bytes per object and per reference.
struct FileKeys {
    private let file: String
    /// Per entity: the last key of its hierarchy before the import.
    private let bases: [String: UInt64]
    /// Per entity: the top entity of its hierarchy.
    private let roots: [String: String]
    /// Per hierarchy top: the keys of the objects imported so far.
    private var used: [String: ClaimedKeys] = [:]
    /// The references to check at the end: the hierarchy, the store key, and what names it.
    private var references: [(root: String, key: UInt64, line: Int, field: String)] = []
    /// The hierarchies (by top entity) the file holds objects of; `nil` for all.
    private let fileRoots: Set<String>?
    /// References to objects already in the store: the entity, the key, and what names it.
    private var storeReferences: [(entity: String, key: UInt64, line: Int, field: String)] = []

    /// The keys of an import into a store of `schema`, whose hierarchies' last keys `lastKey`
    /// gives (by entity), from the file named `file`, which holds objects of `fileEntity`'s
    /// hierarchy only (a CSV file), or of any entity (`nil`).
    init(
        schema: Schema, file: String, fileEntity: String? = nil,
        lastKey: (String) throws -> UInt64
    ) rethrows {
        self.file = file
        var bases: [String: UInt64] = [:]
        var roots: [String: String] = [:]
        for entity in schema.entities {
            bases[entity.name] = try lastKey(entity.name)
            var top = entity
            var steps = 0
            while let name = top.superentity, let parent = schema.entity(named: name),
                steps < schema.entities.count
            {
                top = parent
                steps += 1
            }
            roots[entity.name] = top.name
        }
        self.bases = bases
        self.roots = roots
        fileRoots = fileEntity.map { [roots[$0] ?? $0] }
    }

    /// The store key of `object`, or `nil` for the next key of its sequence; its links in
    /// store keys.
    /// - Throws: ``LineError`` for a key an earlier object of its hierarchy has.
    mutating func keys(of object: ImportedObject) throws -> (
        primaryKey: UInt64?, links: [(relationship: Int, keys: [UInt64])]
    ) {
        let entity = object.entity
        var primaryKey: UInt64? = nil
        if let id = object.id {
            let key = (bases[entity.name] ?? 0) &+ UInt64(bitPattern: id)
            try claim(key, of: entity.name, line: object.line)
            primaryKey = key
        }
        let links = object.links.map { r, keys in
            let relationship = entity.relationships[r]
            let destination = relationship.destination
            let field = "\(entity.name).\(relationship.name)"
            if let fileRoots, !fileRoots.contains(roots[destination] ?? destination) {
                for key in keys {
                    storeReferences.append((destination, key, object.line, field))
                }
                return (r, keys)
            }
            let base = bases[destination] ?? 0
            let mapped = keys.map { base &+ $0 }
            for key in mapped {
                references.append((roots[destination] ?? destination, key, object.line, field))
            }
            return (r, mapped)
        }
        return (primaryKey, links)
    }

    /// Records that an object of `entity` was inserted with `key`.
    /// - Throws: ``LineError`` if an earlier object of its hierarchy has it.
    mutating func claim(_ key: UInt64, of entity: String, line: Int) throws {
        let root = roots[entity] ?? entity
        guard used[root, default: ClaimedKeys()].insert(key) else {
            throw LineError(
                file: file, line: line,
                message:
                    "\(entity) \(key - (bases[entity] ?? 0)) is an object of the file already: give each object of the \(root) hierarchy its own \"_id\", or none of them one"
            )
        }
    }

    /// Checks that every reference names an object of the file, or of the store where the file
    /// holds one entity's objects (`exists` says whether the store has an object of an entity,
    /// or of one that inherits from it, with a key).
    /// - Throws: ``LineError`` for the first that does not.
    func checkReferences(exists: (String, UInt64) throws -> Bool) throws {
        for reference in storeReferences where try !exists(reference.entity, reference.key) {
            throw LineError(
                file: file, line: reference.line,
                message:
                    "\(reference.field) names \(reference.entity) \(reference.key), which the store does not hold: import the \(reference.entity) objects first"
            )
        }
        for reference in references where used[reference.root]?.contains(reference.key) != true {
            let base = bases[reference.root] ?? 0
            throw LineError(
                file: file, line: reference.line,
                message:
                    "\(reference.field) names key \(reference.key &- base), and no object of the \(reference.root) hierarchy in the file has that \"_id\""
            )
        }
    }

    /// The key a JSON value holds: an integer of 1 or more.
    static func key(_ value: JSONValue) -> UInt64? {
        guard case .number(let text) = value, let key = UInt64(text), key > 0 else { return nil }
        return key
    }

    /// The keys a relationship's JSON value holds: for a to-one a key or `null`; for a link
    /// list its data value (the hex of 8-byte big-endian keys, ascending) or `null`.
    static func keys(_ value: JSONValue, toMany: Bool) -> [UInt64]? {
        if value == .null { return [] }
        guard toMany else { return key(value).map { [$0] } }
        guard
            case .data(let data)? = AttributeValue(
                json: value, as: AttributeDescription("links", .data, optional: true))
        else { return nil }
        return keys(links: data)
    }

    /// The keys a relationship's CSV field holds: for a to-one a key, for a link list the hex
    /// of its keys as export writes it; empty for an empty field.
    static func keys(csvField text: String, toMany: Bool) -> [UInt64]? {
        if text.isEmpty { return [] }
        guard toMany else { return UInt64(text).flatMap { $0 > 0 ? [$0] : nil } }
        guard case .data(let data)? = AttributeValue(text: text, as: .data) else { return nil }
        return keys(links: data)
    }

    /// The keys of a stored link list (not empty: no links are written as null).
    private static func keys(links data: Data) -> [UInt64]? {
        data.isEmpty ? nil : LinkList.keys(data)
    }
}

/// The keys claimed in one hierarchy: an ascending list while they come in ascending order (as
/// `export` writes them: no hashing, 8 bytes a key), a set from the first that does not.
struct ClaimedKeys {
    private var ascending: [UInt64] = []
    private var unordered: Set<UInt64>?

    /// Adds `key`; `false` if it was claimed already.
    mutating func insert(_ key: UInt64) -> Bool {
        if unordered == nil {
            if let last = ascending.last, key <= last {
                unordered = Set(ascending)
                ascending = []
            } else {
                ascending.append(key)
                return true
            }
        }
        return unordered!.insert(key).inserted
    }

    func contains(_ key: UInt64) -> Bool {
        if let unordered { return unordered.contains(key) }
        var (low, high) = (0, ascending.count)
        while low < high {
            let middle = (low + high) / 2
            if ascending[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < ascending.count && ascending[low] == key
    }
}
