/// `employees demo`: the seed's whole story, step by step, on the real store.
///
/// Adds three employees, lists them, raises one salary from 2000000 to 3000000 (the seed's
/// example), deletes one, lists again, runs a filtered fetch, then shows the store as the
/// `logbook` tool sees it. Employees from earlier runs stay in the store and show in the lists.
struct DemoStory {
    var repository: any EmployeeRepository
    var print: (String) -> Void
    /// The store's dump as the `logbook` tool prints it, or `nil` if this build has none.
    var dumpStore: (() throws(EmployeesError) -> [String])?
    /// The store's path, for the hint printed when there is no dump.
    var storePath = "<store>"

    static let employees = [
        EmployeeDraft(name: "Ann Lee", designation: "Engineer", salary: 2_000_000),
        EmployeeDraft(name: "Kevin Park", designation: "Designer", salary: 1_500_000),
        EmployeeDraft(name: "Maria Garcia", designation: "Support", salary: 900_000),
    ]

    func run() throws(EmployeesError) {
        let runner = CommandRunner(repository: repository, print: print)
        step(1, "Add three employees (the seed's \"Add Employee\" form)")
        var added: [EmployeeRecord] = []
        for draft in Self.employees {
            let employee = try repository.add(draft)
            added.append(employee)
            print("added \(employee.id): \(employee.title), salary \(employee.salary)")
        }

        step(2, "List them (the seed's table: \"name — designation\", salary)")
        try runner.run(.list(Invocation.ListOptions()))

        let ann = added[0]
        step(3, "Edit \(ann.name): salary 2000000 → 3000000")
        try runner.run(.update(id: ann.id, changes: EmployeeChanges(salary: 3_000_000)))

        let kevin = added[1]
        step(4, "Delete \(kevin.name) (the seed's swipe to delete)")
        try runner.run(.delete(id: kevin.id))

        step(5, "List again")
        try runner.run(.list(Invocation.ListOptions()))

        step(6, "Fetch with a predicate: salary > 1000000, highest first")
        var query = Invocation.ListOptions()
        query.query = EmployeeQuery(filter: "salary > 1000000", sortKey: .salary, descending: true)
        try runner.run(.list(query))

        step(7, "The store as the logbook tool sees it (logbook dump)")
        if let dumpStore {
            try dumpStore().forEach(print)
        } else {
            print("(skipped: the logbook tool is not built next to employees. To see it:")
            print("   swift run logbook dump '\(storePath)')")
        }
    }

    private func step(_ number: Int, _ title: String) {
        if number > 1 { print("") }
        print("== \(number). \(title)")
    }
}
