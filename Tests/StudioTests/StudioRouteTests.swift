import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

@testable import logbook

/// Every route of the studio over HTTP, on the demo store, with the server on an ephemeral
/// port: what each view shows.
@Suite final class StudioRouteTests {
    let fixture: StudioFixture
    let studio: RunningStudio

    init() throws {
        fixture = try StudioFixture.demo()
        studio = try fixture.start()
    }

    deinit {
        studio.stop()
        fixture.remove()
    }

    @Test func overviewShowsEntitiesHealthAndRecovery() throws {
        let page = try studio.get("/")
        #expect(page.status == 200)
        #expect(page.header("content-type") == "text/html; charset=utf-8")
        let main = mainPart(page.text)
        #expect(
            main.contains(#"<a href="/entity/Employee">Employee</a></th><td class="num">59</td>"#))
        #expect(main.contains(#"<a href="/entity/Company">Company</a></th><td class="num">2</td>"#))
        #expect(main.contains("OK: 1 segment"))
        #expect(main.contains("A clean open"))
        #expect(main.contains("Schema versions stored: 1"))
    }

    @Test func schemaPageDrawsEveryEntityAndRelationship() throws {
        let page = try studio.get("/schema")
        #expect(page.status == 200)
        let main = mainPart(page.text)
        #expect(main.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"schema\""))
        for entity in ["Company", "StaffedEmployee", "Employee", "Contact"] {
            #expect(main.contains("font-weight=\"bold\" fill=\"#102a43\">\(entity)</text>"))
        }
        #expect(main.contains("designation: String  [indexed]"))
        #expect(main.contains("email: String  [unique]"))
        #expect(main.contains("employees → StaffedEmployee [*] ↔ company, cascade"))
        #expect(main.contains("<line "))
        let image = try studio.get("/schema.svg")
        #expect(image.status == 200)
        #expect(image.header("content-type") == "image/svg+xml; charset=utf-8")
        #expect(image.text.hasPrefix("<?xml"))
    }

    @Test func objectsArePagedInKeyOrderWithCountAndPlan() throws {
        let first = mainPart(try studio.get("/entity/Employee").text)
        #expect(first.contains(#"<strong id="match-count">59</strong> objects"#))
        #expect(first.contains("showing 1–50"))
        #expect(first.contains("every object, by primary key"))
        #expect(first.contains(#"<a href="/entity/Employee/1">1</a>"#))
        #expect(!first.contains(#"<a href="/entity/Employee/51">51</a>"#))
        #expect(first.contains(#"href="/entity/Employee?offset=50" rel="next""#))
        let last = mainPart(try studio.get("/entity/Employee?offset=50").text)
        #expect(last.contains("showing 51–59"))
        #expect(last.contains(#"<a href="/entity/Employee/59">59</a>"#))
        #expect(!last.contains(#"<a href="/entity/Employee/60">60</a>"#))  // deleted
        // Descending key order, from the walk of the keys (Employee 60 is deleted) and from the
        // run 1…N (no Company was deleted).
        let down = mainPart(try studio.get("/entity/Employee?desc=1&limit=2").text)
        #expect(down.contains(#"<a href="/entity/Employee/59">59</a>"#))
        #expect(down.contains(#"<a href="/entity/Employee/58">58</a>"#))
        let companies = mainPart(try studio.get("/entity/Company?desc=1").text)
        #expect(
            companies.range(of: "/entity/Company/2\"")!.lowerBound
                < companies.range(of: "/entity/Company/1\"")!.lowerBound)
        // An offset past the end shows the last page.
        #expect(
            mainPart(try studio.get("/entity/Employee?offset=5000").text).contains("showing 51–59"))
    }

    @Test func objectsSortByAnyAttributeBothWays() throws {
        let page = mainPart(try studio.get("/entity/Employee?sort=salary&desc=1&limit=3").text)
        #expect(page.contains(#"aria-sort="descending""#))
        let order = ["/entity/Employee/1\"", "/entity/Employee/59\"", "/entity/Employee/58\""].map {
            page.range(of: $0)?.lowerBound
        }
        #expect(order.allSatisfy { $0 != nil })
        #expect(order[0]! < order[1]! && order[1]! < order[2]!)
        let ascending = mainPart(try studio.get("/entity/Employee?sort=name&limit=2").text)
        #expect(ascending.contains(#"aria-sort="ascending""#))
        #expect(try studio.get("/entity/Employee?sort=nosuch").status == 400)
    }

    @Test func aFilterShowsItsCountAndItsIndexPlan() throws {
        let page = try studio.get("/entity/Employee?where=designation%20%3D%3D%20%27Engineer%27")
        #expect(page.status == 200)
        let main = mainPart(page.text)
        #expect(main.contains(#"<strong id="match-count">19</strong> objects match"#))
        #expect(main.contains("index Employee(designation)"))
        let scan = mainPart(try studio.get("/entity/Employee?where=salary+%3E+55000").text)
        #expect(scan.contains(#"<strong id="match-count">5</strong>"#))
        #expect(scan.contains("scan"))
    }

    @Test func aBadFilterIsReportedOnThePage() throws {
        let page = try studio.get("/entity/Employee?where=salary+%3E%3E+1")
        #expect(page.status == 400)
        #expect(mainPart(page.text).contains("The filter does not work"))
        let unknown = try studio.get("/entity/Employee?where=nosuch+%3D%3D+1")
        #expect(unknown.status == 400)
        #expect(mainPart(unknown.text).contains("nosuch"))
    }

    @Test func objectPageShowsAttributesRelationshipsAndHistory() throws {
        let page = try studio.get("/entity/Employee/1")
        #expect(page.status == 200)
        let main = mainPart(page.text)
        #expect(main.contains("<h1>Employee/1</h1>"))
        #expect(main.contains(#"<td class="value"><span class="Int64">99000</span></td>"#))
        // Its history: the insert, then the update with before and after.
        #expect(main.contains("Save 3</a>: insert"))
        #expect(main.contains("Save 5</a>: update"))
        #expect(
            main.contains(
                #"<td class="before"><span class="Int64">1000</span></td><td class="after"><span class="Int64">99000</span></td>"#
            ))
        let company = mainPart(try studio.get("/entity/Company/1").text)
        #expect(company.contains("2 objects."))
        #expect(company.contains(#"href="/entity/StaffedEmployee?via=company&amp;of=1""#))
        #expect(company.contains(#"<a href="/entity/StaffedEmployee/1">StaffedEmployee/1</a>"#))
        let staff = mainPart(try studio.get("/entity/StaffedEmployee/1").text)
        #expect(staff.contains(#"<a href="/entity/Company/1">Company/1</a>"#))
        let viaGrid = mainPart(try studio.get("/entity/StaffedEmployee?via=company&of=1").text)
        #expect(viaGrid.contains(#"<strong id="match-count">2</strong>"#))
        #expect(try studio.get("/entity/Employee/60").status == 404)
        #expect(try studio.get("/entity/Employee/x").status == 404)
        #expect(try studio.get("/entity/Nobody/1").status == 404)
    }

    @Test func everyAttributeTypeShows() throws {
        let main = mainPart(try studio.get("/entity/Contact/1").text)
        #expect(main.contains("ann@example.com"))
        #expect(main.contains(#"<span class="null">nil</span>"#))
        #expect(main.contains(#"<span class="data">4 bytes</span> <code>000102ff</code>"#))
        #expect(main.contains("1971-01-01T00:00:00Z"))
        #expect(main.contains("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(main.contains("2.5"))
    }

    @Test func historyTimelineAndOneSave() throws {
        let timeline = mainPart(try studio.get("/history").text)
        for sequence in 2...6 { #expect(timeline.contains("Save \(sequence)</a>")) }
        #expect(timeline.contains("60 inserted"))
        #expect(timeline.contains("seed"))
        #expect(
            timeline.range(of: "Save 6</a>")!.lowerBound
                < timeline.range(of: "Save 2</a>")!.lowerBound)
        let save = mainPart(try studio.get("/history/6").text)
        #expect(save.contains("0 inserted, 0 updated, 1 deleted"))
        #expect(save.contains("delete <a href=\"/entity/Employee/60\">Employee/60</a>"))
        #expect(save.contains("Employee 60"))  // the value before the delete
        let update = mainPart(try studio.get("/history/5").text)
        #expect(update.contains("<td class=\"before\"><span class=\"Int64\">1000</span>"))
        #expect(try studio.get("/history/99").status == 404)
        #expect(try studio.get("/history/abc").status == 404)
    }

    @Test func theStoreAsOfASaveIsThePastMarkedAsSuch() throws {
        let now = try ModelContainer(
            schema: nil, at: URL(fileURLWithPath: fixture.path),
            options: {
                var options = LogStoreOptions()
                options.readOnly = true
                return options
            }())
        let identifier = try now.currentHistoryToken.storeIdentifier
        let token = HistoryToken(storeIdentifier: identifier, sequence: 4)
        let page = try studio.get("/entity/Employee?asof=\(token)")
        #expect(page.status == 200)
        #expect(page.text.contains(#"<body data-live="0" data-sequence="6" class="past">"#))
        let main = mainPart(page.text)
        #expect(main.contains("<strong>The past:</strong>"))
        #expect(main.contains(#"<strong id="match-count">60</strong>"#))  // before the delete
        let object = mainPart(try studio.get("/entity/Employee/1?asof=\(token)").text)
        #expect(object.contains(#"<span class="Int64">1000</span>"#))  // before the raise
        #expect(try studio.get("/entity/Employee?asof=garbage").status == 400)
    }

    @Test func logShowsSegmentsFilesAndWhatCompactionReclaims() throws {
        let main = mainPart(try studio.get("/log").text)
        #expect(main.contains(#"<svg class="segments""#))
        #expect(main.contains(#"<rect class="live""#))
        #expect(main.contains("A compaction would reclaim up to"))
        #expect(main.contains("hint files"))
        #expect(main.contains("keys.dir"))
        #expect(main.contains("logbook-indexes.sidecar"))
    }

    @Test func exportsTheFilterAsCSVAndJSONLines() throws {
        let csv = try studio.get("/entity/Employee/export.csv?where=salary+%3C%3D+3000")
        #expect(csv.status == 200)
        #expect(csv.header("content-type") == "text/csv; charset=utf-8")
        #expect(csv.header("content-disposition") == "attachment; filename=\"Employee.csv\"")
        #expect(
            csv.text
                == "id,name,designation,salary\r\n2,Employee 2,Manager,2000\r\n"
                + "3,Employee 3,Engineer,3000\r\n")
        let jsonl = try studio.get("/entity/StaffedEmployee/export.jsonl?sort=name&desc=1")
        let lines = jsonl.text.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("{\"_schema\":"))
        #expect(
            lines[1]
                == #"{"_entity":"StaffedEmployee","_id":3,"name":"Cy","salary":100,"company":2}"#)
        #expect(
            lines[3]
                == #"{"_entity":"StaffedEmployee","_id":1,"name":"Ann","salary":100,"company":1}"#)
    }

    @Test func theExportReadsBackWithLogbookImport() throws {
        let jsonl = try studio.get(
            "/entity/Employee/export.jsonl?where=designation+%3D%3D+%27Engineer%27")
        let copy = TemporaryDirectory("studio-import")
        defer { copy.remove() }
        writeFile(copy.child("rows.jsonl"), jsonl.body)
        let status = LogbookTool.main(
            ["import", copy.child("store"), copy.child("rows.jsonl")], console: Console())
        #expect(status == 0)
        let container = try ModelContainer(
            schema: nil, at: URL(fileURLWithPath: copy.child("store")))
        defer { try? container.close() }
        #expect(
            try ModelContext(container).fetchCount(EntityFetchDescriptor(entityName: "Employee"))
                == 19)
    }

    @Test func assetsAndTheEntityList() throws {
        let css = try studio.get("/assets/studio.css")
        #expect(css.status == 200)
        #expect(css.header("content-type") == "text/css; charset=utf-8")
        let js = try studio.get("/assets/studio.js")
        #expect(js.header("content-type") == "text/javascript; charset=utf-8")
        #expect(js.text.contains("EventSource"))
        #expect(try studio.get("/assets/other.js").status == 404)
        let list = mainPart(try studio.get("/entity").text)
        #expect(list.contains(#"<a href="/entity/Contact">Contact</a> (2 objects)"#))
        let head = try request(port: studio.port, "/", method: "HEAD", headers: studio.cookie)
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let connection = try TestConnection(port: studio.port)
        for target in ["/", "/log", "/entity/Employee?offset=10"] {
            connection.send(
                "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\n"
                    + "Cookie: logbook_studio_\(studio.port)=\(RunningStudio.token)\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.header("connection") == "keep-alive")
        }
    }

    @Test func everyResponseCarriesTheSecurityHeadersAndNoCORS() throws {
        for target in ["/", "/assets/studio.js", "/nowhere", "/entity/Employee/export.csv"] {
            let response = try studio.get(target, headers: ["Origin": "http://evil.example"])
            #expect(
                response.header("content-security-policy")?.contains("script-src 'self'") == true)
            #expect(response.header("x-content-type-options") == "nosniff")
            #expect(response.header("x-frame-options") == "DENY")
            #expect(response.header("cache-control") == "no-store")
            #expect(!response.headers.contains { $0.name.hasPrefix("access-control-") })
        }
    }

    @Test func serverTimingIsReported() throws {
        let timing = try studio.get("/entity/Employee").header("server-timing") ?? ""
        #expect(timing.hasPrefix("app;dur="))
    }
}
