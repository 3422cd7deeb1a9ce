import Foundation
import LogStore
import Logbook

/// `logbook history PATH [--since TOKEN] [--entity E] [--format text|jsonl]`: the store's saves,
/// each with its token, time, author and what it changed.
enum History: Subcommand {
    static let name = "history"
    static let summary = "list the saves in the store's history, with what each changed"
    static let positionals = ["PATH"]
    static let options = [
        HistoryAccess.sinceOption,
        OptionSpec(name: "entity", valueName: "NAME", help: "only changes of this entity"),
        OptionSpec(name: "format", valueName: "FORMAT", help: "text (default) or jsonl"),
    ]
    static let discussion = """
        text: per save a line `TOKEN  TIME  AUTHOR`, then one line per change: `insert E/1`, \
        `update E/1 salary,name` (the attributes it changed), `delete E/1`.
        jsonl: one line per save: {"token": …, "sequence": N, "time": ISO 8601, "author": … or \
        null, "changes": [{"kind": "update", "entity": "E", "id": 1, "attributes": [...]}, …]}.
        Both end with the token to resume from (`resume TOKEN`, {"_resume": TOKEN}). How far \
        back history goes is the store's retention; asking for older saves is an error naming \
        the oldest token still available (exit status 1). The store is opened read-only.
        \(TornTail.readOnlyHelp)
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let jsonl =
            try arguments.choice("format", of: ["text", "jsonl"], default: "text") == "jsonl"
        let since = try HistoryAccess.since(arguments)
        let container = try HistoryAccess.open(path)
        TornTail.warn(container.store.recovery, console)
        defer { try? container.close() }
        let entity = arguments.value("entity")
        if let entity, container.schema.entity(named: entity) == nil {
            throw CommandError.usage(
                "no entity \"\(entity)\" in the stored schema (it has "
                    + container.schema.entities.map(\.name).joined(separator: ", ") + ")")
        }
        let reader = try HistoryAccess.reporting { try container.historyReader(after: since) }
        let out = console.out
        while let transaction = try HistoryAccess.reporting({ try reader.next() }) {
            let changes = transaction.changes.filter {
                entity == nil || $0.identifier.entityName == entity
            }
            if entity != nil && changes.isEmpty { continue }
            let time = AttributeValue.date(transaction.timestamp).text(as: .csv)
            if jsonl {
                var line =
                    "{\"token\":\"\(transaction.token)\",\"sequence\":\(transaction.sequence)"
                line += ",\"time\":\"\(time)\",\"author\":"
                line += transaction.author.map(Formatting.quoted) ?? "null"
                line += ",\"changes\":["
                line += changes.map { change in
                    var item = "{\"kind\":\"\(change.kind.rawValue)\",\"entity\":"
                    item += Formatting.quoted(change.identifier.entityName)
                    item += ",\"id\":\(change.identifier.primaryKey)"
                    if change.kind == .update {
                        item += ",\"attributes\":["
                        item += change.updatedAttributes.map(Formatting.quoted).joined(
                            separator: ",")
                        item += "]"
                    }
                    return item + "}"
                }.joined(separator: ",")
                out.write(line + "]}\n")
            } else {
                out.write("\(transaction.token)  \(time)  \(transaction.author ?? "-")\n")
                for change in changes {
                    out.write("  \(change.kind.rawValue) \(change.identifier)")
                    if change.kind == .update {
                        out.write(" " + change.updatedAttributes.joined(separator: ","))
                    }
                    out.write("\n")
                }
            }
        }
        out.write(jsonl ? "{\"_resume\":\"\(reader.token)\"}\n" : "resume \(reader.token)\n")
        return 0
    }
}
