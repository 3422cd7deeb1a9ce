import Foundation

/// What the soak's store holds, as the writer reports it and the parent models it: employees
/// and companies by their codes. Its ``digest`` is what a reader, a backup and the writer at
/// restart compare a store with, so a view that is not the state after some whole save shows.
package struct SoakState: Equatable, Sendable {
    /// An employee: name, salary, and the code of its company (`nil` for none).
    package struct Person: Equatable, Sendable {
        package var name: String
        package var salary: Int64
        package var company: Int64?

        package init(name: String, salary: Int64, company: Int64?) {
            self.name = name
            self.salary = salary
            self.company = company
        }
    }

    package var employees: [Int64: Person] = [:]
    package var companies: [Int64: String] = [:]

    package init() {}

    /// One change of a save, as the writer reports it (one word, no spaces).
    package enum Effect: Equatable, Sendable {
        /// The employee `code` now holds `person` (inserted or updated).
        case employee(Int64, Person)
        /// The employee `code` was deleted.
        case deleteEmployee(Int64)
        /// The company `code` now has `name` (inserted or renamed).
        case company(Int64, String)
        /// The company `code` was deleted; its employees lost their company (delete rule nullify).
        case deleteCompany(Int64)

        package var word: String {
            switch self {
            case .employee(let code, let p):
                return "E:\(code):\(p.salary):\(p.company ?? -1):\(p.name)"
            case .deleteEmployee(let code): return "D:\(code)"
            case .company(let code, let name): return "C:\(code):\(name)"
            case .deleteCompany(let code): return "X:\(code)"
            }
        }

        package init?(word: Substring) {
            let f = word.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false)
            guard let kind = f.first, f.count >= 2, let code = Int64(f[1]) else { return nil }
            switch (kind, f.count) {
            case ("E", 5):
                guard let salary = Int64(f[2]), let company = Int64(f[3]) else { return nil }
                self = .employee(
                    code,
                    Person(
                        name: String(f[4]), salary: salary, company: company < 0 ? nil : company))
            case ("D", 2): self = .deleteEmployee(code)
            case ("C", 3): self = .company(code, String(f[2]))
            case ("X", 2): self = .deleteCompany(code)
            default: return nil
            }
        }
    }

    /// Applies one effect, as the store does.
    package mutating func apply(_ effect: Effect) {
        switch effect {
        case .employee(let code, let person): employees[code] = person
        case .deleteEmployee(let code): employees[code] = nil
        case .company(let code, let name): companies[code] = name
        case .deleteCompany(let code):
            companies[code] = nil
            for (key, person) in employees where person.company == code {
                employees[key]?.company = nil
            }
        }
    }

    /// FNV-1a over the state's lines in code order: equal states, equal digests.
    package var digest: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String) {
            for byte in text.utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3
            }
        }
        for code in companies.keys.sorted() { mix("c\(code) \(companies[code]!)\n") }
        for code in employees.keys.sorted() {
            let p = employees[code]!
            mix("e\(code) \(p.name) \(p.salary) \(p.company ?? -1)\n")
        }
        return hash
    }

    /// A short description for failure messages.
    package var summary: String { "\(employees.count) employees, \(companies.count) companies" }
}
