/// The companies screen, opened with `c` from the employee list: the companies with their
/// city and number of employees; `a` add, Enter rename, `d` delete, Esc/`q`/`c` back.
///
/// Deleting follows the command line's rule: the store refuses to delete a company that still
/// has employees (its `deny` rule), and the screen then offers what `--reassign-to` and
/// `--force` do: `m` moves them to a company picked from a list, `f` deletes it and leaves
/// them without one. Every change is saved at once. Not thread-safe.
final class CompaniesScreen {
    enum Mode: Equatable {
        case list
        case form(CompanyForm)
        case confirmDelete(CompanyRecord)
        /// The store refused the deletion: the company still has `count` employees.
        case staffed(CompanyRecord, count: Int)
        /// Choosing where the employees of the company go before it is deleted.
        case reassign(CompanyRecord, CompanyPicker)
    }

    private let repository: any EmployeeRepository
    private(set) var list = ListSelection<CompanyRecord>()
    private(set) var mode: Mode = .list
    private(set) var status = StatusMessage()
    /// Set when the user goes back to the employee list.
    private(set) var isClosed = false

    init(repository: any EmployeeRepository) {
        self.repository = repository
        reload(selecting: nil)
    }

    /// Every company, by name (there are few enough to hold).
    private(set) var rows: [CompanyRecord] = []
    var selectedCompany: CompanyRecord? { list.selected }

    func handle(_ key: Key) {
        switch mode {
        case .list:
            handleList(key)
        case .form(var form):
            switch form.handle(key) {
            case .editing: mode = .form(form)
            case .cancelled:
                mode = .list
                report(nil)
            case .submitted(let draft): save(draft, from: form)
            }
        case .confirmDelete(let company):
            mode = .list
            guard key == .character("y") || key == .character("Y") else {
                return report("Kept \(company.name).")
            }
            delete(company, .refuseIfStaffed)
        case .staffed(let company, _):
            mode = .list
            switch key {
            case .character("m"), .character("M"):
                let others = rows.filter { $0.id != company.id }
                guard !others.isEmpty else {
                    return report("There is no other company to move them to.", isError: true)
                }
                let picker = CompanyPicker(
                    title: "Move the employees of \(company.name) to", companies: others,
                    offersNone: false, selectedID: nil)
                mode = .reassign(company, picker)
            case .character("f"), .character("F"):
                delete(company, .releaseEmployees)
            default:
                report("Kept \(company.name).")
            }
        case .reassign(let company, var picker):
            switch picker.handle(key) {
            case .picking: mode = .reassign(company, picker)
            case .cancelled:
                mode = .list
                report("Kept \(company.name).")
            case .picked(let target):
                mode = .list
                guard let target else { return }
                delete(company, .reassign(to: target.id))
            }
        }
    }

    private func handleList(_ key: Key) {
        if list.move(for: key) { return }
        switch key {
        case .character("a"):
            mode = .form(CompanyForm())
            report(nil)
        case .enter, .character("r"):
            guard let company = selectedCompany else { return }
            mode = .form(CompanyForm(editing: company))
            report(nil)
        case .character("d"), .delete:
            guard let company = selectedCompany else { return }
            mode = .confirmDelete(company)
        case .character("q"), .character("c"), .escape, .endOfInput:
            isClosed = true
        default:
            break
        }
    }

    private func save(_ draft: CompanyDraft, from form: CompanyForm) {
        do throws(EmployeesError) {
            let saved: CompanyRecord
            if let id = form.editingID {
                saved = try repository.updateCompany(
                    id, with: CompanyChanges(name: draft.name, city: draft.city))
                report("Saved \(saved.name).")
            } else {
                saved = try repository.addCompany(draft)
                report("Added \(saved.name).")
            }
            mode = .list
            reload(selecting: saved.id)
        } catch {
            mode = .form(form)
            report(error)
        }
    }

    private func delete(_ company: CompanyRecord, _ handling: CompanyDeletion) {
        do throws(EmployeesError) {
            let result = try repository.deleteCompany(company.id, handling: handling)
            let staff = result.company.staffDescription
            if let target = result.reassignedTo {
                report("Deleted \(company.name); its \(staff) moved to \(target.name).")
            } else if result.company.employeeCount > 0 {
                report("Deleted \(company.name); \(staff) left without a company.")
            } else {
                report("Deleted \(company.name).")
            }
            reload(selecting: nil)
        } catch .companyHasEmployees(_, let count) {
            mode = .staffed(company, count: count)
        } catch {
            report(error)
        }
    }

    private func reload(selecting id: String?) {
        do throws(EmployeesError) {
            rows = try repository.companies()
            list.show(ArrayRows(rows), selecting: id)
        } catch {
            report(error)
        }
    }

    private func report(_ message: String?, isError: Bool = false) {
        status.report(message, isError: isError)
    }

    private func report(_ error: EmployeesError) { status.report(error) }
}
