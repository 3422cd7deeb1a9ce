import Foundation
import Logbook

/// `logbook query PATH --entity E [--group-by A,B] [--sum A] … [--search TEXT]`: numbers about
/// an entity's objects computed without building them (per group or over all), or a full-text
/// search of its searchable attributes.
enum Query: Subcommand {
    static let name = "query"
    static let summary = "count, sum, average, min, max per group, distinct values, or search"
    static let positionals = ["PATH"]
    static let options = [
        OptionSpec(name: "entity", valueName: "NAME", help: "the entity (required)"),
        OptionSpec(name: "where", valueName: "EXPR", help: "only objects matching a predicate"),
        OptionSpec(
            name: "group-by", valueName: "A,B",
            help: "group by attributes, to-one relationships or relationship.attribute"),
        OptionSpec(name: "sum", valueName: "A,B", help: "sum of number attributes"),
        OptionSpec(name: "avg", valueName: "A,B", help: "mean of number or date attributes"),
        OptionSpec(name: "min", valueName: "A,B", help: "smallest values"),
        OptionSpec(name: "max", valueName: "A,B", help: "largest values"),
        OptionSpec(name: "count", valueName: "A,B", help: "objects whose attributes are not null"),
        OptionSpec(name: "having", valueName: "EXPR", help: "only groups matching, by column name"),
        OptionSpec(
            name: "sort", valueName: "COL,-COL", help: "order of the groups (- for descending)"),
        OptionSpec(name: "limit", valueName: "N", help: "at most N groups or search results"),
        OptionSpec(name: "distinct", valueName: "A", help: "the distinct values of an attribute"),
        OptionSpec(
            name: "search", valueName: "TEXT", help: "full-text search, best first (with score)"),
        OptionSpec(name: "format", valueName: "FORMAT", help: "text (default) or json"),
    ]
    static let discussion = """
        Without --search or --distinct, prints one row per group (one row without --group-by): \
        the group keys, `count`, then a column per function named `sum_salary`, `avg_salary`, \
        `min_salary`, `max_salary`, `count_salary`; --having and --sort name these columns \
        (`--having "count > 10" --sort -sum_salary`). Indexes answer counts, minimums and \
        maximums without reading records where they can; the rest is one scan that decodes only \
        the attributes involved. --search TEXT finds objects by the words of their searchable \
        attributes (`jose`, `ann*`, `"ann lee"`), ranked by BM25. The store is opened read-only.
        json: one object per row; per search result {"id": N, "score": S}.
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let json = try arguments.choice("format", of: ["text", "json"], default: "text") == "json"
        guard let entity = arguments.value("entity") else {
            throw CommandError.usage("query needs --entity NAME")
        }
        let container = try HistoryAccess.open(path)
        defer { try? container.close() }
        guard container.schema.entity(named: entity) != nil else {
            throw CommandError.usage(
                "no entity \"\(entity)\" in the stored schema (it has "
                    + container.schema.entities.map(\.name).joined(separator: ", ") + ")")
        }
        let context = ModelContext(container)
        let predicate = try arguments.value("where").map { try parse($0, "--where") }
        do {
            if let text = arguments.value("search") {
                var descriptor = EntitySearchDescriptor(entityName: entity, text: text)
                descriptor.predicate = predicate
                descriptor.limit = try arguments.count("limit")
                write(try context.searchMatches(descriptor), context, json: json, console)
                return 0
            }
            if let attribute = arguments.value("distinct") {
                let values = try context.distinctValues(
                    entity: entity, attribute: attribute, where: predicate)
                for value in values {
                    console.out.write(value.text(as: json ? .json : .csv) + "\n")
                }
                return 0
            }
            var descriptor = EntityAggregateDescriptor(
                entityName: entity, groupBy: list(arguments.value("group-by")))
            descriptor.predicate = predicate
            for (option, operation) in [
                ("count", AggregateOperation.count), ("sum", .sum), ("avg", .average),
                ("min", .minimum), ("max", .maximum),
            ] {
                for attribute in list(arguments.value(option)) {
                    descriptor.functions.append((operation, attribute))
                }
            }
            descriptor.having = try arguments.value("having").map { try parse($0, "--having") }
            descriptor.sortBy = list(arguments.value("sort")).map { column in
                column.hasPrefix("-") ? (String(column.dropFirst()), false) : (column, true)
            }
            descriptor.limit = try arguments.count("limit")
            write(try context.aggregate(descriptor), json: json, console)
            return 0
        } catch let error as LogbookError {
            throw CommandError.failed(error.description)
        }
    }

    /// `a, b` as `["a", "b"]`; empty for `nil`.
    private static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    private static func parse(_ expression: String, _ option: String) throws -> StringPredicate {
        do { return try StringPredicate(format: expression, arguments: []) } catch {
            throw CommandError.usage("\(option): \(error)")
        }
    }

    private static func write(_ rows: [AggregateRow], json: Bool, _ console: Console) {
        guard let first = rows.first else { return }
        let names = first.columnNames
        if json {
            for row in rows {
                let fields = names.map { name in
                    Formatting.quoted(name) + ":" + (row[column: name] ?? .null).text(as: .json)
                }
                console.out.write("{" + fields.joined(separator: ",") + "}\n")
            }
            return
        }
        var table = AlignedTable(
            rightAligned: Set(
                names.indices.filter { i in
                    rows.contains { row in
                        switch row[column: names[i]] {
                        case .integer, .double: true
                        default: false
                        }
                    }
                }))
        table.append(names)
        for row in rows {
            table.append(names.map { name in cell(row[column: name] ?? .null) })
        }
        table.flush(to: console.out)
    }

    /// A value as a table cell: numbers plain (means to two decimals), text as it is.
    private static func cell(_ value: AttributeValue) -> String {
        switch value {
        case .null: "null"
        case .string(let text): text
        case .double(let number): Formatting.fixed(number, digits: 2)
        default: value.text(as: .csv)
        }
    }

    private static func write(
        _ matches: [SearchMatch], _ context: ModelContext, json: Bool, _ console: Console
    ) {
        var table = AlignedTable(rightAligned: [0, 1])
        for match in matches {
            let score = Formatting.fixed(match.score, digits: 4)
            if json {
                console.out.write("{\"id\":\(match.id.primaryKey),\"score\":\(score)}\n")
            } else {
                let object = (try? context.object(for: match.id)).flatMap { $0 }
                table.append([
                    "\(match.id.primaryKey)", score, object.map { String(describing: $0) } ?? "",
                ])
            }
        }
        if !json { table.flush(to: console.out) }
    }
}
