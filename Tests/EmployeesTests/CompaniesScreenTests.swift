import Testing

@testable import employees

/// The companies screen (`c` from the list): add, rename, delete under the deny rule.
@Suite struct CompaniesScreenTests {
    private let store: TemporaryRepository
    private let screen: EmployeeListScreen

    init() throws {
        store = try TemporaryRepository(
            companies: DemoStory.companies, employees: DemoStory.employees)
        screen = EmployeeListScreen(repository: store.repository)
        screen.handle(.character("c"))
    }

    private func press(_ keys: [Key]) { for key in keys { screen.handle(key) } }

    private var texts: [String] { screen.render(width: 60, height: 12).texts }

    private var companies: CompaniesScreen {
        get throws { try #require(screen.companiesScreen) }
    }

    @Test func listsCompaniesWithCityAndEmployeeCount() throws {
        #expect(texts[0].hasPrefix(" Companies") && texts[0].hasSuffix("2 companies "))
        #expect(texts[1].hasSuffix("EMPLOYEES "))
        #expect(texts[2].hasPrefix(" > Acme — Pune") && texts[2].hasSuffix("2 "))
        #expect(texts[3].hasPrefix("   Globex — Shanghai") && texts[3].hasSuffix("1 "))
        #expect(texts[11].contains("a add"))
        press([.escape])
        #expect(screen.companiesScreen == nil)
        #expect(texts[0].hasPrefix(" Employees"))
    }

    @Test func addAndRename() throws {
        press([.character("a")] + Key.typing("Initech") + [.tab] + Key.typing("Austin") + [.enter])
        #expect(try companies.status.text == "Added Initech.")
        #expect(texts.contains { $0.hasPrefix(" > Initech — Austin") })
        press(
            [.enter, .end] + Key.typing("e") + [.home, .right, .right, .delete] + Key.typing("r"))
        press([.enter, .clearLine, .enter])
        #expect(try companies.status.text == "Saved Inrteche.")
        #expect(try store.repository.company("Company/3").city == nil)
        // A duplicate name is refused; the form stays open with what was typed.
        press([.character("a")] + Key.typing("acme") + [.enter, .enter])
        #expect(try companies.status.text == "Added acme.", "names differing in case are distinct")
        press([.character("a")] + Key.typing("Acme") + [.enter, .enter])
        guard case .form(let form) = try companies.mode else {
            Issue.record("form closed")
            return
        }
        #expect(form.value(of: .name) == "Acme")
        #expect(try companies.status.isError)
        #expect(texts[10].contains("already exists (Company/1)"))
        press([.escape, .escape])
        #expect(try store.repository.companies().count == 4)
    }

    @Test func deletingACompanyWithEmployeesIsRefusedThenMovesThem() throws {
        press([.character("d")])
        #expect(texts[10].contains("Delete Acme? (y/n)"))
        press([.character("y")])
        #expect(texts[10].contains("Acme still has 2 employees; not deleted."))
        #expect(texts[11].contains("m move them elsewhere · f force delete"))
        #expect(try store.repository.companies().count == 2, "the store refused")
        press([.character("m")])
        #expect(texts[0].contains("Move the employees of Acme to"))
        #expect(!texts.contains { $0.contains("No company") })
        press([.enter])
        #expect(try companies.status.text == "Deleted Acme; its 2 employees moved to Globex.")
        #expect(
            try store.repository.all().map { $0.company?.name } == ["Globex", "Globex", "Globex"])
        press([.escape])
        #expect(
            screen.list.visibleRows(height: 20).map { $0.company?.name }
                == ["Globex", "Globex", "Globex"], "reloaded")
    }

    @Test func forceLeavesTheEmployeesWithoutACompany() throws {
        press([.down, .character("d"), .character("y"), .character("f")])
        #expect(try companies.status.text == "Deleted Globex; 1 employee left without a company.")
        #expect(try store.repository.all().map { $0.company?.name } == ["Acme", "Acme", nil])
    }

    @Test func anyOtherKeyKeepsTheCompany() throws {
        press([.character("d"), .character("y"), .character("x")])
        #expect(try companies.status.text == "Kept Acme.")
        press([.character("d"), .character("y"), .character("m"), .escape])
        #expect(try companies.status.text == "Kept Acme.")
        press([.character("d"), .character("n")])
        #expect(try store.repository.companies().count == 2)
    }

    @Test func aCompanyWithoutEmployeesIsDeletedAtOnce() throws {
        _ = try store.repository.addCompany(CompanyDraft(name: "Initech"))
        press([.escape, .character("c"), .end, .character("d"), .character("y")])
        #expect(try companies.status.text == "Deleted Initech.")
    }
}
