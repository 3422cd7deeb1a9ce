import Foundation
import LogStore
import Logbook
import TestSupport

@testable import logbook

/// A store for the studio's tests, and studios serving it.
struct StudioFixture {
    let directory: TemporaryDirectory
    let path: String

    /// The value a hostile store holds to test escaping.
    static let script = "<script>alert(1)</script>"
    /// Another one, made to break out of an attribute.
    static let attributeBreak = "\"><img src=x onerror=alert(2)>"

    /// An empty fixture (no store yet).
    init(_ label: String = "studio") {
        directory = TemporaryDirectory(label)
        path = directory.child("store.logbook")
    }

    /// The demo store: two companies with staff, 60 employees (more than one page) among them
    /// one named ``script``, contacts with every attribute type; then an update of Ann's salary
    /// and the deletion of employee 60, each its own save by `seed`.
    static func demo() throws -> StudioFixture {
        let fixture = StudioFixture()
        let container = try fixture.open()
        let context = ModelContext(container)
        context.author = "seed"
        let acme = Company(name: "Acme")
        let globex = Company(name: Self.script)
        context.insert(acme)
        context.insert(globex)
        for (name, company) in [("Ann", acme), ("Bo", acme), ("Cy", globex)] {
            context.insert(StaffedEmployee(name: name, salary: 100, company: company))
        }
        try context.save()
        for i in 1...60 {
            let name = i == 7 ? Self.script : "Employee \(i)"
            let designation = i == 8 ? Self.attributeBreak : i % 3 == 0 ? "Engineer" : "Manager"
            context.insert(Employee(name: name, designation: designation, salary: Int64(i * 1000)))
        }
        try context.save()
        let contact = Contact(email: "ann@example.com", nickname: nil, age: 41)
        contact.score = 2.5
        contact.birthday = Date(timeIntervalSince1970: 86_400 * 365)
        contact.avatar = Data([0, 1, 2, 0xFF])
        contact.token = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        context.insert(contact)
        context.insert(Contact(email: "bo@example.com"))
        try context.save()
        let ann = try context.fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Employee 1" }))
        ann[0].salary = 99_000
        try context.save()
        let last = try context.fetch(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.name == "Employee 60" }))
        context.delete(last[0])
        try context.save()
        try container.close()
        return fixture
    }

    /// Opens the store for writing, with the test models.
    func open() throws -> ModelContainer {
        try ModelContainer(
            for: [Company.self, StaffedEmployee.self, Employee.self, Contact.self],
            at: URL(fileURLWithPath: path))
    }

    /// A studio serving the store on an ephemeral port, with short time limits.
    func start(writable: Bool = false, http: HTTPServerConfiguration = .testing) throws
        -> RunningStudio
    {
        var options = StudioServer.Options(path: path)
        options.writable = writable
        options.token = RunningStudio.token
        options.http = http
        return RunningStudio(server: try StudioServer(options))
    }

    func remove() { directory.remove() }
}

extension HTTPServerConfiguration {
    /// Time limits short enough for tests to see them.
    static var testing: HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.requestTimeout = .seconds(2)
        configuration.idleTimeout = .seconds(2)
        configuration.responseTimeout = .seconds(5)
        configuration.chunkTimeout = .seconds(5)
        return configuration
    }
}

/// A studio the test talks to; stopped when the test ends (``stop()``).
final class RunningStudio {
    static let token = "0123456789abcdef0123456789abcdef"
    let server: StudioServer

    init(server: StudioServer) { self.server = server }

    var port: UInt16 { server.port }

    /// The cookie header that carries the token.
    var cookie: [String: String] { ["Cookie": "logbook_studio_\(port)=\(Self.token)"] }

    /// `GET target` with the cookie.
    func get(_ target: String, headers: [String: String] = [:]) throws -> TestResponse {
        try request(port: port, target, headers: cookie.merging(headers) { $1 })
    }

    /// `POST target` with a form body, the token in the header (unless `header` is false) and
    /// the cookie.
    func post(_ target: String, form: String = "", tokenHeader: Bool = true) throws -> TestResponse
    {
        var headers = cookie
        if tokenHeader { headers["X-Logbook-Token"] = Self.token }
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        headers["Accept"] = "text/plain"
        return try request(
            port: port, target, method: "POST", headers: headers, body: Array(form.utf8))
    }

    func stop() { server.stop() }
}

/// The text of a page's `<main>` (what the tests look at).
func mainPart(_ html: String) -> String {
    guard let start = html.range(of: "<main"), let end = html.range(of: "</main>") else {
        return html
    }
    return String(html[start.lowerBound..<end.upperBound])
}
