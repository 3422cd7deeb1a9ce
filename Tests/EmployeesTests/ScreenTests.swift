import Testing

@testable import employees

/// The interactive list driven by key sequences, checked through its rendered rows.
@Suite struct ScreenTests {
    private static let seed = [
        EmployeeDraft(name: "Ann Lee", designation: "Engineer", salary: 2_000_000),
        EmployeeDraft(name: "Kevin Park", designation: "Designer", salary: 1_500_000),
    ]

    private func makeScreen(_ drafts: [EmployeeDraft] = seed)
        -> (EmployeeListScreen, InMemoryEmployeeRepository)
    {
        let repository = InMemoryEmployeeRepository(drafts)
        return (EmployeeListScreen(repository: repository), repository)
    }

    private func press(_ keys: [Key], on screen: EmployeeListScreen) {
        for key in keys { screen.handle(key) }
    }

    /// The employee rows as drawn (marker, title, salary), spaces collapsed.
    private func rows(_ screen: EmployeeListScreen) -> [String] {
        screen.render(width: 60, height: 12).texts.dropFirst(2)
            .filter { $0.hasPrefix(" > ") || ($0.hasPrefix("   ") && $0.contains("—")) }
            .map {
                $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            }
    }

    @Test func listShowsTitleAndSalaryLikeTheSeedsCells() {
        let (screen, _) = makeScreen()
        let frame = screen.render(width: 60, height: 12)
        #expect(frame.lines.count == 12)
        #expect(frame.lines.allSatisfy { $0.text.count == 60 })
        #expect(frame.texts[0].contains("2 employees"))
        #expect(rows(screen) == ["> Ann Lee — Engineer 2000000", "Kevin Park — Designer 1500000"])
        #expect(frame.lines[2].style == .selected)
        #expect(frame.texts[11].contains("a add"))
    }

    @Test func arrowsAndJKMoveTheSelectionWithinBounds() {
        let (screen, _) = makeScreen()
        press([.down, .down, .down], on: screen)
        #expect(screen.selection == 1)
        press([.character("k"), .character("k")], on: screen)
        #expect(screen.selection == 0)
        press([.character("j")], on: screen)
        #expect(rows(screen).last == "> Kevin Park — Designer 1500000")
    }

    @Test func addFormSavesAtOnceAndSelectsTheNewRow() throws {
        let (screen, repository) = makeScreen()
        press([.character("a")], on: screen)
        #expect(screen.render(width: 60, height: 12).texts[0].contains("Add Employee"))
        press(Key.typing("Maria Garcia") + [.tab] + Key.typing("Support") + [.enter], on: screen)
        press(Key.typing("900000") + [.enter], on: screen)
        #expect(screen.mode == .list)
        #expect(screen.status == "Added Maria Garcia.")
        #expect(rows(screen).last == "> Maria Garcia — Support 900000")
        #expect(try repository.all().map(\.name) == ["Ann Lee", "Kevin Park", "Maria Garcia"])
    }

    @Test func enterEditsTheSelectedEmployeeWithTheFormPrefilled() throws {
        let (screen, repository) = makeScreen()
        press([.enter], on: screen)
        let form = screen.render(width: 60, height: 12).texts
        #expect(form[0].contains("Edit Employee"))
        #expect(form.contains { $0.contains("Salary:") && $0.contains("2000000") })
        // The seed's update: salary 2000000 → 3000000.
        press([.tab, .tab, .clearLine] + Key.typing("3000000") + [.enter], on: screen)
        #expect(rows(screen).first == "> Ann Lee — Engineer 3000000")
        #expect(try repository.employee(id: "E1").salary == 3_000_000)
    }

    @Test func invalidSalaryKeepsTheFormOpenWithAnError() throws {
        let (screen, repository) = makeScreen()
        press([.character("a")] + Key.typing("Zed") + [.tab, .tab] + Key.typing("12x"), on: screen)
        press([.enter], on: screen)
        guard case .form(let form) = screen.mode else {
            Issue.record("form closed on a bad salary")
            return
        }
        #expect(form.focus == .salary)
        #expect(screen.render(width: 60, height: 12).texts.contains { $0.contains("whole number") })
        press([.backspace, .enter], on: screen)
        #expect(screen.mode == .list)
        #expect(try repository.employee(id: "E3").salary == 12)
    }

    @Test func emptyNameIsRefused() {
        let (screen, _) = makeScreen([])
        press([.character("a"), .tab, .tab] + Key.typing("5") + [.enter], on: screen)
        guard case .form(let form) = screen.mode else {
            Issue.record("form closed with an empty name")
            return
        }
        #expect(form.focus == .name)
        #expect(form.error == "Name is required.")
    }

    @Test func escapeCancelsTheFormWithoutSaving() throws {
        let (screen, repository) = makeScreen()
        press([.enter] + Key.typing(" Jr") + [.escape], on: screen)
        #expect(screen.mode == .list)
        #expect(try repository.employee(id: "E1").name == "Ann Lee")
    }

    @Test func deleteAsksThenDeletesOnY() throws {
        let (screen, repository) = makeScreen()
        press([.down, .character("d")], on: screen)
        #expect(screen.render(width: 60, height: 12).texts[10].contains("Delete Kevin Park"))
        press([.character("y")], on: screen)
        #expect(rows(screen) == ["> Ann Lee — Engineer 2000000"])
        #expect(try repository.all().count == 1)
        #expect(screen.status == "Deleted Kevin Park.")
    }

    @Test func deleteIsCancelledByAnyOtherKey() throws {
        let (screen, repository) = makeScreen()
        press([.character("d"), .character("n")], on: screen)
        #expect(try repository.all().count == 2)
        #expect(screen.mode == .list)
    }

    @Test func emptyListSaysHowToAdd() {
        let (screen, _) = makeScreen([])
        press([.enter, .character("d")], on: screen)
        #expect(screen.mode == .list)
        #expect(
            screen.render(width: 60, height: 8).texts.contains { $0.contains("Press a to add") })
    }

    @Test func longListsScrollToKeepTheSelectionVisible() {
        let drafts = (1...30).map {
            EmployeeDraft(name: "Person \($0)", designation: "Staff", salary: Int64($0))
        }
        let (screen, _) = makeScreen(drafts)
        press(Array(repeating: .down, count: 25), on: screen)
        let texts = screen.render(width: 40, height: 10).texts
        #expect(texts.count == 10)
        #expect(texts.contains { $0.hasPrefix(" > Person 26 — Staff") })
    }

    @Test func qAndCtrlCQuit() {
        let (screen, _) = makeScreen()
        press([.character("q")], on: screen)
        #expect(screen.isFinished)
        let (other, _) = makeScreen()
        press([.character("a"), .interrupt], on: other)
        #expect(other.isFinished)
    }

    @Test func tinyWindowsStillRenderExactlyTheirSize() {
        let (screen, _) = makeScreen()
        for (width, height) in [(1, 1), (5, 2), (12, 3), (200, 4)] {
            let frame = screen.render(width: width, height: height)
            #expect(frame.lines.count == height)
            #expect(frame.lines.allSatisfy { $0.text.count == width })
        }
    }

    @Test func controlCharactersInNamesAreNotSentToTheTerminal() {
        let (screen, _) = makeScreen([
            EmployeeDraft(name: "Evil\u{1B}[2J\n", designation: "x", salary: 1)
        ])
        let row = screen.render(width: 60, height: 8).texts[2]
        #expect(!row.contains("\u{1B}") && !row.contains("\n"))
        #expect(row.hasPrefix(" > Evil\u{FFFD}[2J\u{FFFD} — x"))
    }

    @Test func aFailedSaveKeepsTheFormAndWhatWasTyped() {
        let screen = EmployeeListScreen(repository: FailingRepository())
        press(
            [.character("a")] + Key.typing("Ann") + [.tab, .tab] + Key.typing("5") + [.enter],
            on: screen)
        guard case .form(let form) = screen.mode else {
            Issue.record("form closed although the save failed")
            return
        }
        #expect(form.value(of: .name) == "Ann")
        #expect(screen.statusIsError)
        #expect(screen.render(width: 60, height: 12).texts[10] == " disk full".fitted(to: 60))
    }
}

/// A store whose writes all fail, for the screen's error path.
private final class FailingRepository: EmployeeRepository {
    func add(_ draft: EmployeeDraft) throws(EmployeesError) -> EmployeeRecord {
        throw .store("disk full")
    }
    func list(_ query: EmployeeQuery) -> [EmployeeRecord] { [] }
    func employee(id: String) throws(EmployeesError) -> EmployeeRecord {
        throw .unknownEmployee(id: id)
    }
    func update(id: String, with changes: EmployeeChanges) throws(EmployeesError)
        -> EmployeeRecord
    { throw .store("disk full") }
    func delete(id: String) throws(EmployeesError) { throw .store("disk full") }
}
