/// The interactive app as a state machine: keys in, ``ScreenFrame``s out, no terminal I/O.
///
/// Modes: the list (↑↓/j/k move, `a` add, Enter edit, `d` delete, `c` companies, `/` search,
/// `q` quit), the add/edit form with its company picker, the delete confirmation (`y` deletes,
/// any other key keeps), the search field, and the ``CompaniesScreen``. Every change goes to
/// the repository — and so to disk — at once; a failed save is shown on the status line and
/// the form stays open with what was typed. Not thread-safe.
///
/// The list pages through the store (``EmployeeRepository/employeeWindow(filter:)``): opening
/// it reads which employees there are, and drawing reads only the rows on screen.
///
/// A search is a string predicate (`salary > 100000 AND name BEGINSWITH[c] 'a'`) that the
/// store evaluates; one it rejects keeps the field open and shows why on the status line.
/// Esc in the list drops the search (and quits when there is none).
final class EmployeeListScreen {
    /// What the screen is showing (when ``companiesScreen`` is not open).
    enum Mode: Equatable {
        case list
        case form(EmployeeForm)
        case confirmDelete(EmployeeRecord)
        /// Typing a search; the list below still shows the current one.
        case search(TextField)
    }

    private let repository: any EmployeeRepository
    /// Shown in the title bar (the store's path).
    let subtitle: String
    private(set) var list = ListSelection<EmployeeRecord>()
    private(set) var mode: Mode = .list
    /// The search the list shows, if any.
    private(set) var filter: String?
    /// The companies screen, while it is open; it gets every key but Ctrl-C.
    private(set) var companiesScreen: CompaniesScreen?
    /// The last thing that happened, or the last error.
    private(set) var status = StatusMessage()
    /// Set when the user quits; the caller stops feeding keys.
    private(set) var isFinished = false

    init(repository: any EmployeeRepository, subtitle: String = "") {
        self.repository = repository
        self.subtitle = subtitle
        reload(selecting: nil)
    }

    var selection: Int { list.index }
    var selectedEmployee: EmployeeRecord? { list.selected }

    func handle(_ key: Key) {
        if key == .interrupt {
            isFinished = true
            return
        }
        if let companiesScreen {
            companiesScreen.handle(key)
            if companiesScreen.isClosed {
                self.companiesScreen = nil
                // Companies may have been renamed or deleted, their employees moved.
                reload(selecting: selectedEmployee?.id)
            }
            return
        }
        switch mode {
        case .list: handleList(key)
        case .form(var form):
            switch form.handle(key) {
            case .editing: mode = .form(form)
            case .cancelled:
                mode = .list
                report(nil)
            case .submitted(let draft): save(draft, from: form)
            }
        case .search(let field):
            handleSearch(key, field)
        case .confirmDelete(let employee):
            mode = .list
            if key == .character("y") || key == .character("Y") {
                do throws(EmployeesError) {
                    try repository.delete(id: employee.id)
                    report("Deleted \(employee.name).")
                    reload(selecting: nil)
                } catch {
                    report(error)
                }
            } else {
                report("Kept \(employee.name).")
            }
        }
    }

    private func handleList(_ key: Key) {
        if list.move(for: key) { return }
        switch key {
        case .character("a"):
            mode = .form(EmployeeForm(companies: loadCompanies()))
        case .enter:
            guard let employee = selectedEmployee else { return }
            mode = .form(EmployeeForm(editing: employee, companies: loadCompanies()))
        case .character("d"), .delete:
            guard let employee = selectedEmployee else { return }
            mode = .confirmDelete(employee)
        case .character("c"):
            companiesScreen = CompaniesScreen(repository: repository)
            report(nil)
        case .character("r"):
            reload(selecting: selectedEmployee?.id)
            report("Reloaded.")
        case .character("/"):
            mode = .search(TextField(filter ?? ""))
            report(nil)
        case .escape where filter != nil:
            filter = nil
            reload(selecting: selectedEmployee?.id)
            report("Showing every employee.")
        case .character("q"), .escape, .endOfInput:
            isFinished = true
        default:
            break
        }
    }

    /// Keys in the search field: Enter searches (an empty field shows everyone), Esc goes back.
    private func handleSearch(_ key: Key, _ field: TextField) {
        var field = field
        switch key {
        case .escape:
            mode = .list
            report(nil)
        case .enter:
            let text = field.text.trimmingSpaces()
            let wanted = text.isEmpty ? nil : text
            do throws(EmployeesError) {
                list.show(
                    try repository.employeeWindow(filter: wanted), selecting: selectedEmployee?.id)
                filter = wanted
                mode = .list
                report(
                    wanted == nil
                        ? "Showing every employee."
                        : list.count == 1
                            ? "1 employee matches." : "\(list.count) employees match.")
            } catch {
                mode = .search(field)
                report(error)
            }
        default:
            _ = field.handle(key)
            mode = .search(field)
        }
    }

    /// The companies for a form's picker; an error is shown and leaves the list empty.
    private func loadCompanies() -> [CompanyRecord] {
        report(nil)
        do throws(EmployeesError) {
            return try repository.companies()
        } catch {
            report(error)
            return []
        }
    }

    private func save(_ draft: EmployeeDraft, from form: EmployeeForm) {
        do throws(EmployeesError) {
            let saved: EmployeeRecord
            if let id = form.editingID {
                let changes = EmployeeChanges(
                    name: draft.name, designation: draft.designation, salary: draft.salary,
                    company: draft.company.map { .assign($0) } ?? .remove)
                saved = try repository.update(id: id, with: changes)
                report("Saved \(saved.name).")
            } else {
                saved = try repository.add(draft)
                report("Added \(saved.name).")
            }
            mode = .list
            reload(selecting: saved.id)
        } catch {
            mode = .form(form)
            report(error)
        }
    }

    private func reload(selecting id: String?) {
        do throws(EmployeesError) {
            list.show(try repository.employeeWindow(filter: filter), selecting: id)
        } catch {
            report(error)
        }
    }

    private func report(_ message: String?) { status.report(message) }

    private func report(_ error: EmployeesError) { status.report(error) }
}
