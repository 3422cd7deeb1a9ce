import Foundation

/// How `company list` prints — a table for people (columns measured in terminal columns, so wide
/// characters keep them aligned) and JSON for scripts — and the one-line summary of an
/// employee. `list` streams instead (``EmployeeTable``, ``EmployeeJSON``).
enum OutputFormat {
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

    /// The report as three tables: all employees, per company, per designation; averages
    /// rounded to whole units.
    static func table(_ report: EmployeeReport) -> [String] {
        func rows(_ lines: [EmployeeReport.Line], none: String) -> [[String]] {
            lines.map { line in
                [
                    line.group ?? none, String(line.headcount), String(line.totalSalary),
                    line.averageSalary.map { String(Int64($0.rounded())) } ?? "-",
                ].map(\.displayable)
            }
        }
        let header = ["", "EMPLOYEES", "TOTAL SALARY", "AVERAGE SALARY"]
        let minimum = [12, 9, 12, 14]
        var result = columns(header, rows([report.all], none: "All"), minimum: minimum)
        for (title, lines, none) in [
            ("COMPANY", report.byCompany, "(no company)"),
            ("DESIGNATION", report.byDesignation, "(none)"),
        ] where !lines.isEmpty {
            result.append("")
            var titled = header
            titled[0] = title
            result += columns(titled, rows(lines, none: none), minimum: minimum)
        }
        return result.map { line in
            var line = line
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// The report as one JSON object: `{"all": line, "companies": [line], "designations":
    /// [line]}`, each line `{"name", "employees", "totalSalary", "averageSalary"}` (`name` null
    /// for employees without a company and for `all`).
    static func json(_ report: EmployeeReport) -> String {
        struct Row: Encodable {
            var line: EmployeeReport.Line
            enum Keys: String, CodingKey { case name, employees, totalSalary, averageSalary }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(line.group, forKey: .name)
                try container.encode(line.headcount, forKey: .employees)
                try container.encode(line.totalSalary, forKey: .totalSalary)
                try container.encode(line.averageSalary, forKey: .averageSalary)
            }
        }
        struct Report: Encodable {
            var all: Row
            var companies: [Row]
            var designations: [Row]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let value = Report(
            all: Row(line: report.all), companies: report.byCompany.map(Row.init),
            designations: report.byDesignation.map(Row.init))
        // Encoding strings, integers, doubles and nulls cannot fail (averages are finite).
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
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
