import Testing

@testable import employees

/// The list screen over a million employees reads only the rows it shows, and `/` searches
/// with a string predicate the store evaluates.
@Suite struct ScreenSearchTests {
    private func press(_ keys: [Key], on screen: EmployeeListScreen) {
        for key in keys { screen.handle(key) }
    }

    @Test func aMillionEmployeesAreNeverAllRead() {
        let repository = WindowedRepository(count: 1_000_000)
        let screen = EmployeeListScreen(repository: repository)
        var texts = screen.render(width: 60, height: 12).texts
        #expect(texts[0].hasSuffix("1000000 employees "))
        #expect(texts[2].hasPrefix(" > Person 1 — Staff"))
        press([.pageDown, .pageDown, .down], on: screen)
        texts = screen.render(width: 60, height: 12).texts
        #expect(texts.contains { $0.hasPrefix(" > Person 22 — Staff") })
        press([.end], on: screen)
        texts = screen.render(width: 60, height: 12).texts
        #expect(texts.contains { $0.hasPrefix(" > Person 1000000 — Staff") })
        #expect(screen.selectedEmployee?.id == "Employee/1000000")
        let read = repository.source.requested.map(\.count)
        #expect(!read.isEmpty && read.allSatisfy { $0 <= 12 }, "\(read)")
        #expect(read.reduce(0, +) < 200)
    }

    private func makeScreen() throws -> (EmployeeListScreen, TemporaryRepository) {
        let store = try TemporaryRepository(
            companies: DemoStory.companies, employees: DemoStory.employees)
        return (EmployeeListScreen(repository: store.repository), store)
    }

    private func names(_ screen: EmployeeListScreen) -> [String] {
        screen.render(width: 60, height: 12).texts.compactMap { line in
            DemoStory.employees.map(\.name).first { line.contains($0) }
        }
    }

    @Test func slashSearchesWithAStringPredicate() throws {
        let (screen, _) = try makeScreen()
        press([.character("/")] + Key.typing("salary >= 1_000_000"), on: screen)
        var frame = screen.render(width: 60, height: 12)
        #expect(frame.texts[1].hasPrefix(" > Search: salary >= 1_000_000"))
        #expect(frame.cursor?.row == 1 && frame.cursor?.column == 11 + 19)
        #expect(frame.texts[11].contains("Enter search"))
        press([.enter], on: screen)
        #expect(screen.mode == .list)
        #expect(screen.status.text == "2 employees match.")
        frame = screen.render(width: 60, height: 12)
        #expect(frame.texts[0].contains("Employees where salary >= 1_000_000"))
        #expect(frame.texts[0].hasSuffix("2 employees "))
        #expect(names(screen) == ["Ann Lee", "Kevin Park"])
        #expect(frame.texts[11].contains("Esc clear"))

        // Editing the search starts from it; what the search shows stays until Enter.
        press([.character("/"), .clearLine] + Key.typing("name BEGINSWITH[c] 'm'"), on: screen)
        #expect(names(screen) == ["Ann Lee", "Kevin Park"])
        press([.enter], on: screen)
        #expect(names(screen) == ["Maria Garcia"])
        #expect(screen.status.text == "1 employee matches.")

        press([.escape], on: screen)
        #expect(screen.status.text == "Showing every employee.")
        #expect(names(screen) == ["Ann Lee", "Kevin Park", "Maria Garcia"])
        press([.escape], on: screen)
        #expect(screen.isFinished, "Esc without a search quits, as before")
    }

    @Test func plainWordsSearchNamesAsTyped() throws {
        let (screen, _) = try makeScreen()
        press([.character("/")] + Key.typing("mar") + [.enter], on: screen)
        #expect(screen.status.isError == false)
        #expect(names(screen) == ["Maria Garcia"])
        press([.character("/"), .clearLine] + Key.typing("KEV park") + [.enter], on: screen)
        #expect(names(screen) == ["Kevin Park"])
        press([.character("/"), .clearLine] + Key.typing("nobody") + [.enter], on: screen)
        #expect(names(screen).isEmpty)
        // An expression still filters.
        press(
            [.character("/"), .clearLine] + Key.typing("salary > 1_000_000") + [.enter], on: screen)
        #expect(names(screen) == ["Ann Lee", "Kevin Park"])
    }

    @Test func aBadSearchSaysWhyAndKeepsTheField() throws {
        let (screen, _) = try makeScreen()
        press([.character("/")] + Key.typing("salary >") + [.enter], on: screen)
        guard case .search(let field) = screen.mode else {
            Issue.record("the search field closed on a bad predicate")
            return
        }
        #expect(field.text == "salary >")
        #expect(screen.status.isError)
        #expect(
            screen.status.text
                == "cannot use filter \"salary >\": column 9: the predicate ends where a value "
                + "or key path was expected")
        press([.clearLine] + Key.typing("boss == 'Ann'") + [.enter], on: screen)
        #expect(screen.status.text?.contains("column 1: unknown field \"boss\"") == true)
        press([.escape], on: screen)
        #expect(screen.mode == .list && screen.filter == nil)
        #expect(names(screen).count == 3)
        // An empty search shows everyone.
        press([.character("/"), .enter], on: screen)
        #expect(screen.filter == nil && screen.status.text == "Showing every employee.")
    }

    @Test func aSearchSurvivesEditsAndTheNewRowIsSelected() throws {
        let (screen, store) = try makeScreen()
        press([.character("/")] + Key.typing("salary < 1_000_000") + [.enter], on: screen)
        #expect(names(screen) == ["Maria Garcia"])
        press([.character("a")] + Key.typing("Bo") + [.tab, .tab] + Key.typing("5"), on: screen)
        press([.enter, .enter], on: screen)
        #expect(screen.status.text == "Added Bo.")
        #expect(screen.filter == "salary < 1_000_000")
        #expect(screen.selectedEmployee?.name == "Bo")
        #expect(screen.render(width: 60, height: 12).texts[0].hasSuffix("2 employees "))
        #expect(try store.repository.all().count == 4)
    }
}

/// A repository whose employee list is a window over `count` made-up employees that records
/// which rows were read.
private final class WindowedRepository: EmployeeRepository {
    final class Source: RowSource {
        let count: Int
        private(set) var requested: [Range<Int>] = []
        init(count: Int) { self.count = count }
        func rows(_ positions: Range<Int>) -> [EmployeeRecord] {
            requested.append(positions)
            return positions.map {
                EmployeeRecord(
                    id: "Employee/\($0 + 1)", name: "Person \($0 + 1)", designation: "Staff",
                    salary: Int64($0))
            }
        }
        func position(of id: String) -> Int? { nil }
    }

    let source: Source
    init(count: Int) { source = Source(count: count) }

    func employeeWindow(filter: String?) -> any RowSource<EmployeeRecord> { source }
    func forEachEmployee(
        _ query: EmployeeQuery, counted: (Int) -> Void,
        _ body: (EmployeeRecord) throws(EmployeesError) -> Void
    ) throws(EmployeesError) { throw .store("not listed here") }
    func add(_ draft: EmployeeDraft) throws(EmployeesError) -> EmployeeRecord {
        throw .store("read-only")
    }
    func employee(id: String) throws(EmployeesError) -> EmployeeRecord {
        throw .unknownEmployee(id: id)
    }
    func update(id: String, with changes: EmployeeChanges) throws(EmployeesError)
        -> EmployeeRecord
    { throw .store("read-only") }
    func delete(id: String) throws(EmployeesError) { throw .store("read-only") }
    func addCompany(_ draft: CompanyDraft) throws(EmployeesError) -> CompanyRecord {
        throw .store("read-only")
    }
    func companies() -> [CompanyRecord] { [] }
    func company(_ reference: String) throws(EmployeesError) -> CompanyRecord {
        throw .unknownCompany(reference)
    }
    func updateCompany(_ reference: String, with changes: CompanyChanges) throws(EmployeesError)
        -> CompanyRecord
    { throw .store("read-only") }
    func deleteCompany(_ reference: String, handling: CompanyDeletion) throws(EmployeesError)
        -> CompanyDeletionResult
    { throw .store("read-only") }
}
