import Testing

@testable import employees

/// The interactive list driven by key sequences, checked through its rendered rows.
@Suite struct ScreenTests {
    private static let seed = [
        EmployeeDraft(name: "Ann Lee", designation: "Engineer", salary: 2_000_000, company: "Acme"),
        EmployeeDraft(name: "Kevin Park", designation: "Designer", salary: 1_500_000),
    ]

    private func makeScreen(_ drafts: [EmployeeDraft] = seed) throws
        -> (EmployeeListScreen, TemporaryRepository)
    {
        let store = try TemporaryRepository(companies: DemoStory.companies, employees: drafts)
        return (EmployeeListScreen(repository: store.repository), store)
    }

    private func press(_ keys: [Key], on screen: EmployeeListScreen) {
        for key in keys { screen.handle(key) }
    }

    /// The employee rows as drawn (marker, title, company, salary), spaces collapsed.
    private func rows(_ screen: EmployeeListScreen) -> [String] {
        screen.render(width: 60, height: 12).texts.dropFirst(2)
            .filter { $0.hasPrefix(" > ") || ($0.hasPrefix("   ") && $0.contains("—")) }
            .map {
                $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            }
    }

    @Test func listShowsTitleCompanyAndSalaryLikeTheSeedsCells() throws {
        let (screen, _) = try makeScreen()
        let frame = screen.render(width: 60, height: 12)
        #expect(frame.lines.count == 12)
        #expect(frame.lines.allSatisfy { $0.text.displayWidth == 60 })
        #expect(frame.texts[0].contains("2 employees"))
        #expect(frame.texts[1].contains("COMPANY") && frame.texts[1].hasSuffix("SALARY "))
        #expect(
            rows(screen) == ["> Ann Lee — Engineer Acme 2000000", "Kevin Park — Designer 1500000"])
        #expect(frame.lines[2].style == .selected)
        #expect(frame.texts[11].contains("c companies"))
    }

    @Test func aWideCharacterRowStaysAligned() throws {
        let (screen, _) = try makeScreen([
            EmployeeDraft(name: "李小龙", designation: "武术家", salary: 7, company: "Globex"),
            EmployeeDraft(name: "Zoë 👩‍💻", designation: "Engineer", salary: 1_500_000),
            EmployeeDraft(name: "Ann", designation: "", salary: 42, company: "Acme"),
        ])
        for width in [60, 41, 23] {
            let frame = screen.render(width: width, height: 8)
            #expect(frame.lines.allSatisfy { $0.text.displayWidth == width }, "\(frame.texts)")
            // The salary column ends, and the company column starts, at one terminal column.
            let body = frame.texts[1...4]
            #expect(body.allSatisfy { $0.hasSuffix(" ") })
            if width == 60 {
                let starts = zip(body, ["COMPANY", "Globex", nil, "Acme"]).compactMap {
                    line, word in
                    word.flatMap { line.range(of: $0, options: .backwards) }.map {
                        String(line[..<$0.lowerBound]).displayWidth
                    }
                }
                #expect(starts.count == 3 && Set(starts).count == 1, "\(starts) \(body)")
            }
        }
        #expect(
            screen.render(width: 60, height: 8).texts[2]
                == " > 李小龙 — 武术家                         Globex         7 ")
        #expect(rows(screen).first == "> 李小龙 — 武术家 Globex 7")
    }

    @Test func arrowsAndJKMoveTheSelectionWithinBounds() throws {
        let (screen, _) = try makeScreen()
        press([.down, .down, .down], on: screen)
        #expect(screen.selection == 1)
        press([.character("k"), .character("k")], on: screen)
        #expect(screen.selection == 0)
        press([.character("j")], on: screen)
        #expect(rows(screen).last == "> Kevin Park — Designer 1500000")
    }

    @Test func addFormSavesAtOnceAndSelectsTheNewRow() throws {
        let (screen, store) = try makeScreen()
        press([.character("a")], on: screen)
        #expect(screen.render(width: 60, height: 12).texts[0].contains("Add Employee"))
        press(Key.typing("Maria Garcia") + [.tab] + Key.typing("Support") + [.enter], on: screen)
        press(Key.typing("900000") + [.enter, .enter], on: screen)
        #expect(screen.mode == .list)
        #expect(screen.status.text == "Added Maria Garcia.")
        #expect(rows(screen).last == "> Maria Garcia — Support 900000")
        #expect(
            try store.repository.all().map(\.name) == ["Ann Lee", "Kevin Park", "Maria Garcia"])
    }

    @Test func theCompanyPickerNarrowsByTypingAndSetsTheCompany() throws {
        let (screen, store) = try makeScreen()
        press([.character("a")] + Key.typing("Maria") + [.tab, .tab] + Key.typing("9"), on: screen)
        press([.tab, .character(" ")], on: screen)
        var texts = screen.render(width: 60, height: 12).texts
        #expect(texts[0].contains("Choose a company"))
        #expect(texts.contains { $0.hasPrefix(" > No company") })
        #expect(texts.contains { $0.hasPrefix("   Acme — Pune (1 employee)") })
        #expect(texts.contains { $0.hasPrefix("   Globex — Shanghai (0 employees)") })
        press(Key.typing("SHANG"), on: screen)
        texts = screen.render(width: 60, height: 12).texts
        #expect(texts.filter { $0.hasPrefix(" > ") || $0.hasPrefix("   Acme") }.count == 1)
        #expect(texts.contains { $0.hasPrefix(" > Globex") })
        #expect(
            screen.render(width: 60, height: 12).cursor?.column == 16, "after \"Search: SHANG\"")
        press([.enter], on: screen)
        texts = screen.render(width: 60, height: 12).texts
        #expect(texts.contains { $0.hasPrefix(" > Company:     ‹ Globex ›") })
        press([.enter], on: screen)
        #expect(screen.status.text == "Added Maria.")
        #expect(try store.repository.all().last?.company?.name == "Globex")
        #expect(rows(screen).last == "> Maria Globex 9")
    }

    @Test func arrowsStepThroughTheCompaniesAndBackspaceClearsIt() throws {
        let (screen, store) = try makeScreen()
        press([.down, .enter, .up], on: screen)  // Kevin, no company; focus on Company
        guard case .form(let form) = screen.mode else {
            Issue.record("no form")
            return
        }
        #expect(form.focus == .company && form.company == nil)
        press([.right], on: screen)
        #expect(formCompany(screen) == "Acme")
        press([.right], on: screen)
        #expect(formCompany(screen) == "Globex")
        press([.right], on: screen)
        #expect(formCompany(screen) == nil)
        press([.left, .left, .backspace, .left], on: screen)
        #expect(formCompany(screen) == "Globex")
        press([.enter], on: screen)
        #expect(try store.repository.all()[1].company?.name == "Globex")
        press([.enter, .up, .delete, .enter], on: screen)
        #expect(try store.repository.all()[1].company == nil)
        #expect(screen.status.text == "Saved Kevin Park.")
    }

    private func formCompany(_ screen: EmployeeListScreen) -> String? {
        guard case .form(let form) = screen.mode else { return "(no form)" }
        return form.company?.name
    }

    @Test func editingInsideAFieldWithTheCursor() throws {
        let (screen, _) = try makeScreen([])
        press([.character("a")] + Key.typing("Ann Le"), on: screen)
        #expect(cursorColumn(screen) == 3 + 13 + 6)
        press(
            [.left, .left] + Key.typing("x") + [.home] + Key.typing("D") + [.end, .character("e")],
            on: screen)
        #expect(field(.name, screen) == "DAnn xLee")
        press([.home, .right, .delete, .delete, .left, .backspace], on: screen)
        #expect(
            field(.name, screen) == "Dn xLee",
            "delete at the cursor; backspace at the start does nothing")
        press([.right, .right, .right, .right, .backspace], on: screen)
        #expect(field(.name, screen) == "Dn Lee")
        #expect(cursorColumn(screen) == 3 + 13 + 3)
        press([.clearLine] + Key.typing("李小龙") + [.left], on: screen)
        #expect(cursorColumn(screen) == 3 + 13 + 4, "two columns per wide character")
        press(Key.typing("x"), on: screen)
        #expect(field(.name, screen) == "李小x龙")
        press([.tab, .character("a"), .left], on: screen)
        #expect(field(.designation, screen) == "a" && cursorColumn(screen) == 3 + 13)
    }

    private func field(_ field: EmployeeForm.Field, _ screen: EmployeeListScreen) -> String {
        guard case .form(let form) = screen.mode else { return "(no form)" }
        return form.value(of: field)
    }

    private func cursorColumn(_ screen: EmployeeListScreen) -> Int? {
        screen.render(width: 60, height: 12).cursor?.column
    }

    @Test func enterEditsTheSelectedEmployeeWithTheFormPrefilled() throws {
        let (screen, store) = try makeScreen()
        press([.enter], on: screen)
        let form = screen.render(width: 60, height: 12).texts
        #expect(form[0].contains("Edit Employee"))
        #expect(form.contains { $0.contains("Salary:") && $0.contains("2000000") })
        #expect(form.contains { $0.contains("Company:") && $0.contains("Acme") })
        // The seed's update: salary 2000000 → 3000000.
        press([.tab, .tab, .clearLine] + Key.typing("3000000") + [.enter, .enter], on: screen)
        #expect(rows(screen).first == "> Ann Lee — Engineer Acme 3000000")
        #expect(try store.repository.employee(id: "Employee/1").salary == 3_000_000)
        #expect(try store.repository.employee(id: "Employee/1").company?.name == "Acme")
    }

    @Test func invalidSalaryKeepsTheFormOpenWithAnError() throws {
        let (screen, store) = try makeScreen()
        press([.character("a")] + Key.typing("Zed") + [.tab, .tab] + Key.typing("12x"), on: screen)
        press([.enter, .enter], on: screen)
        guard case .form(let form) = screen.mode else {
            Issue.record("form closed on a bad salary")
            return
        }
        #expect(form.focus == .salary)
        #expect(screen.render(width: 60, height: 12).texts.contains { $0.contains("whole number") })
        press([.backspace, .enter, .enter], on: screen)
        #expect(screen.mode == .list)
        #expect(try store.repository.employee(id: "Employee/3").salary == 12)
    }

    @Test func emptyNameIsRefused() throws {
        let (screen, _) = try makeScreen([])
        press([.character("a"), .tab, .tab] + Key.typing("5") + [.enter, .enter], on: screen)
        guard case .form(let form) = screen.mode else {
            Issue.record("form closed with an empty name")
            return
        }
        #expect(form.focus == .name)
        #expect(form.error == "Name is required.")
    }

    @Test func escapeCancelsTheFormWithoutSaving() throws {
        let (screen, store) = try makeScreen()
        press([.enter] + Key.typing(" Jr") + [.escape], on: screen)
        #expect(screen.mode == .list)
        #expect(try store.repository.employee(id: "Employee/1").name == "Ann Lee")
    }

    @Test func deleteAsksThenDeletesOnY() throws {
        let (screen, store) = try makeScreen()
        press([.down, .character("d")], on: screen)
        #expect(screen.render(width: 60, height: 12).texts[10].contains("Delete Kevin Park"))
        press([.character("y")], on: screen)
        #expect(rows(screen) == ["> Ann Lee — Engineer Acme 2000000"])
        #expect(try store.repository.all().count == 1)
        #expect(screen.status.text == "Deleted Kevin Park.")
    }

    @Test func deleteIsCancelledByAnyOtherKey() throws {
        let (screen, store) = try makeScreen()
        press([.character("d"), .character("n")], on: screen)
        #expect(try store.repository.all().count == 2)
        #expect(screen.mode == .list)
    }

    @Test func emptyListSaysHowToAdd() throws {
        let (screen, _) = try makeScreen([])
        press([.enter, .character("d")], on: screen)
        #expect(screen.mode == .list)
        #expect(
            screen.render(width: 60, height: 8).texts.contains { $0.contains("Press a to add") })
    }

    @Test func longListsScrollToKeepTheSelectionVisible() throws {
        let drafts = (1...30).map {
            EmployeeDraft(name: "Person \($0)", designation: "Staff", salary: Int64($0))
        }
        let (screen, _) = try makeScreen(drafts)
        press(Array(repeating: .down, count: 25), on: screen)
        let texts = screen.render(width: 40, height: 10).texts
        #expect(texts.count == 10)
        #expect(texts.contains { $0.hasPrefix(" > Person 26 — Staff") })
    }

    @Test func qAndCtrlCQuit() throws {
        let (screen, _) = try makeScreen()
        press([.character("q")], on: screen)
        #expect(screen.isFinished)
        let (other, _) = try makeScreen()
        press([.character("a"), .interrupt], on: other)
        #expect(other.isFinished)
    }

    @Test func tinyWindowsStillRenderExactlyTheirSize() throws {
        let (screen, _) = try makeScreen()
        for (width, height) in [(1, 1), (5, 2), (12, 3), (200, 4)] {
            for keys in [[], [Key.character("c")], [.escape, .character("a")]] {
                press(keys, on: screen)
                let frame = screen.render(width: width, height: height)
                #expect(frame.lines.count == height)
                #expect(frame.lines.allSatisfy { $0.text.displayWidth == width })
            }
            press([.escape, .escape], on: screen)
        }
    }

    @Test func controlCharactersInNamesAreNotSentToTheTerminal() throws {
        let (screen, _) = try makeScreen([
            EmployeeDraft(name: "Evil\u{1B}[2J\n", designation: "x", salary: 1)
        ])
        let row = screen.render(width: 60, height: 8).texts[2]
        #expect(!row.contains("\u{1B}") && !row.contains("\n"))
        #expect(row.hasPrefix(" > Evil\u{FFFD}[2J\u{FFFD} — x"))
    }

    @Test func aFailedSaveKeepsTheFormAndWhatWasTyped() {
        let screen = EmployeeListScreen(repository: FailingRepository())
        press(
            [.character("a")] + Key.typing("Ann") + [.tab, .tab] + Key.typing("5") + [
                .enter, .enter,
            ],
            on: screen)
        guard case .form(let form) = screen.mode else {
            Issue.record("form closed although the save failed")
            return
        }
        #expect(form.value(of: .name) == "Ann")
        #expect(screen.status.isError)
        #expect(screen.render(width: 60, height: 12).texts[10] == " disk full".fitted(to: 60))
    }
}

/// A store whose writes all fail, for the screen's error path.
final class FailingRepository: EmployeeRepository {
    func add(_ draft: EmployeeDraft) throws(EmployeesError) -> EmployeeRecord {
        throw .store("disk full")
    }
    func forEachEmployee(
        _ query: EmployeeQuery, counted: (Int) -> Void,
        _ body: (EmployeeRecord) throws(EmployeesError) -> Void
    ) {}
    func employeeWindow(filter: String?) -> any RowSource<EmployeeRecord> {
        ArrayRows<EmployeeRecord>([])
    }
    func employee(id: String) throws(EmployeesError) -> EmployeeRecord {
        throw .unknownEmployee(id: id)
    }
    func update(id: String, with changes: EmployeeChanges) throws(EmployeesError)
        -> EmployeeRecord
    { throw .store("disk full") }
    func delete(id: String) throws(EmployeesError) { throw .store("disk full") }
    func addCompany(_ draft: CompanyDraft) throws(EmployeesError) -> CompanyRecord {
        throw .store("disk full")
    }
    func companies() -> [CompanyRecord] { [] }
    func company(_ reference: String) throws(EmployeesError) -> CompanyRecord {
        throw .unknownCompany(reference)
    }
    func updateCompany(_ reference: String, with changes: CompanyChanges) throws(EmployeesError)
        -> CompanyRecord
    { throw .store("disk full") }
    func deleteCompany(_ reference: String, handling: CompanyDeletion) throws(EmployeesError)
        -> CompanyDeletionResult
    { throw .store("disk full") }
}
