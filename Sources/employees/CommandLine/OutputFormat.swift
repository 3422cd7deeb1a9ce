import Foundation

/// How `list` and `company list` print: tables for people (columns measured in terminal
/// columns, so wide characters keep them aligned) and JSON for scripts.
enum OutputFormat {
    /// A table like the seed's list: id, "name — designation", company, salary flush right.
    static func table(_ employees: [EmployeeRecord]) -> [String] {
        guard !employees.isEmpty else { return ["(no employees)"] }
        let rows = employees.map {
            [$0.id, $0.title, $0.company?.name ?? "", String($0.salary)].map(\.displayable)
        }
        return columns(
            ["ID", "NAME — DESIGNATION", "COMPANY", "SALARY"], rows, minimum: [2, 20, 7, 6])
    }

    /// A table of companies: id, name, city, how many employees.
    static func table(_ companies: [CompanyRecord]) -> [String] {
        guard !companies.isEmpty else { return ["(no companies)"] }
        let rows = companies.map {
            [$0.id, $0.name, $0.city ?? "", String($0.employeeCount)].map(\.displayable)
        }
        return columns(["ID", "NAME", "CITY", "EMPLOYEES"], rows, minimum: [2, 4, 4, 9])
    }

    /// "Ann Lee — Engineer, salary 3000000, company Acme".
    static func summary(_ employee: EmployeeRecord) -> String {
        let company = employee.company.map { ", company \($0.name)" } ?? ""
        return "\(employee.title), salary \(employee.salary)\(company)"
    }

    /// A JSON array of `{"company", "designation", "id", "name", "salary"}` objects, keys
    /// sorted; `company` is `{"id", "name"}` or `null`.
    static func json(_ employees: [EmployeeRecord]) -> String {
        struct Company: Encodable {
            var id: String
            var name: String
        }
        struct Row: Encodable {
            var record: EmployeeRecord
            enum Keys: String, CodingKey { case id, name, designation, salary, company }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(record.id, forKey: .id)
                try container.encode(record.name, forKey: .name)
                try container.encode(record.designation, forKey: .designation)
                try container.encode(record.salary, forKey: .salary)
                let company = record.company.map { Company(id: $0.id, name: $0.name) }
                try container.encode(company, forKey: .company)
            }
        }
        return encode(employees.map(Row.init))
    }

    /// A JSON array of `{"city", "employees", "id", "name"}` objects, keys sorted; `city` is
    /// `null` when the company has none, `employees` is a count.
    static func json(_ companies: [CompanyRecord]) -> String {
        struct Row: Encodable {
            var record: CompanyRecord
            enum Keys: String, CodingKey { case id, name, city, employees }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(record.id, forKey: .id)
                try container.encode(record.name, forKey: .name)
                try container.encode(record.city, forKey: .city)
                try container.encode(record.employeeCount, forKey: .employees)
            }
        }
        return encode(companies.map(Row.init))
    }

    private static func encode(_ rows: [some Encodable]) -> String {
        guard !rows.isEmpty else { return "[]" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, integers and nulls cannot fail.
        let data = (try? encoder.encode(rows)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// `header` and `rows` in columns two spaces apart, each at least `minimum` wide; the
    /// last column is flush right, the others flush left.
    private static func columns(_ header: [String], _ rows: [[String]], minimum: [Int])
        -> [String]
    {
        let widths = header.indices.map { column in
            max(minimum[column], ([header] + rows).map { $0[column].displayWidth }.max() ?? 0)
        }
        return ([header] + rows).map { cells in
            cells.indices.map { column in
                column == cells.count - 1
                    ? cells[column].alignedRight(to: widths[column])
                    : cells[column].fitted(to: widths[column])
            }.joined(separator: "  ")
        }
    }
}
