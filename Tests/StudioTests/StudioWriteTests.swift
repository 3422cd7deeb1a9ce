import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

@testable import logbook

/// Writes: none without `--write`; with it, only with the token in a header from this origin,
/// each through the object layer in a save of its own.
@Suite struct StudioWriteTests {
    @Test func withoutTheWriteFlagThereIsNoWritePath() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try fixture.start()
        defer { studio.stop() }
        for (target, form) in [
            ("/entity/Employee/1/edit", "attribute=salary&value=5"),
            ("/entity/Employee/1/delete", ""),
            ("/compact", ""), ("/entity/Employee/1", ""),
        ] {
            let response = try studio.post(target, form: form)
            #expect(response.status == 405, "\(target)")
            #expect(response.header("allow") == "GET, HEAD")
        }
        for method in ["PUT", "DELETE", "PATCH", "OPTIONS"] {
            let response = try request(
                port: studio.port, "/entity/Employee/1", method: method, headers: studio.cookie)
            #expect(response.status == 405)
        }
        let page = try studio.get("/entity/Employee/1").text
        #expect(page.contains(#"<span class="Int64">99000</span>"#))
        #expect(!page.contains("class=\"write"))
        #expect(!page.contains("logbook-write-token"))
        #expect(!(try studio.get("/log").text.contains("Compact now")))
        studio.stop()
        // Nothing was saved: the last save is still the demo's.
        let container = try fixture.open()
        defer { try? container.close() }
        #expect(try container.history().last?.author == "seed")
    }

    @Test func aWriteNeedsTheTokenInAHeaderFromThisOrigin() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try fixture.start(writable: true)
        defer { studio.stop() }
        let form = Array("attribute=salary&value=5".utf8)
        let target = "/entity/Employee/1/edit"
        let type = ["Content-Type": "application/x-www-form-urlencoded"]
        // The cookie alone (what a cross-site form sends) is not enough.
        #expect(
            try request(
                port: studio.port, target, method: "POST",
                headers: studio.cookie.merging(type) { $1 }, body: form
            ).status == 403)
        #expect(
            try request(
                port: studio.port, target + "?token=\(RunningStudio.token)", method: "POST",
                headers: type, body: form
            ).status == 403)
        let header = ["X-Logbook-Token": RunningStudio.token].merging(type) { $1 }
        #expect(
            try request(
                port: studio.port, target, method: "POST",
                headers: header.merging(["Origin": "http://evil.example"]) { $1 }, body: form
            ).status == 403)
        #expect(
            try request(
                port: studio.port, target, method: "POST",
                headers: header.merging(["Sec-Fetch-Site": "cross-site"]) { $1 }, body: form
            ).status == 403)
        #expect(
            try request(
                port: studio.port, target, method: "POST", host: "evil.example", headers: header,
                body: form
            ).status == 403)
        #expect(
            try studio.get("/entity/Employee/1").text.contains(#"<span class="Int64">99000</span>"#)
        )
        let same = header.merging([
            "Origin": "http://127.0.0.1:\(studio.port)", "Sec-Fetch-Site": "same-origin",
        ]) { $1 }
        let done = try request(port: studio.port, target, method: "POST", headers: same, body: form)
        #expect(done.status == 303)
        #expect(done.header("location") == "/entity/Employee/1")
        #expect(
            try studio.get("/entity/Employee/1").text.contains(#"<span class="Int64">5</span>"#))
    }

    @Test func editsAndDeletesGoThroughTheObjectLayerOneSaveEach() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try fixture.start(writable: true)
        defer { studio.stop() }
        let page = try studio.get("/entity/Employee/2").text
        #expect(
            page.contains(#"<meta name="logbook-write-token" content="\#(RunningStudio.token)">"#))
        #expect(page.contains(#"action="/entity/Employee/2/edit""#))
        #expect(
            try studio.post("/entity/Employee/2/edit", form: "attribute=name&value=Zo%C3%AB").status
                == 303)
        #expect(try studio.get("/entity/Employee/2").text.contains("Zoë"))
        // Refused by type, by optionality, by a unique constraint: 422, and nothing saved.
        let badType = try studio.post(
            "/entity/Employee/2/edit", form: "attribute=salary&value=lots")
        #expect(badType.status == 422)
        #expect(badType.text.contains("is not a valid Int64 value"))
        #expect(
            try studio.post("/entity/Employee/2/edit", form: "attribute=name&nil=1").status == 422)
        let clash = try studio.post(
            "/entity/Contact/2/edit", form: "attribute=email&value=ann%40example.com")
        #expect(clash.status == 422)
        #expect(clash.text.contains("ann@example.com"))
        #expect(
            try studio.post("/entity/Employee/2/edit", form: "attribute=nosuch&value=1").status
                == 422)
        #expect(
            try studio.post("/entity/Contact/1/edit", form: "attribute=nickname&value=Annie").status
                == 303)
        // A delete applies the delete rules: the company's staff go with it (cascade).
        #expect(try studio.post("/entity/Company/1/delete").status == 303)
        #expect(try studio.get("/entity/Company/1").status == 404)
        #expect(try studio.get("/entity/StaffedEmployee/1").status == 404)
        #expect(try studio.get("/entity/StaffedEmployee/3").status == 200)
        #expect(try studio.post("/entity/Company/1/delete").status == 404)
        studio.stop()
        let container = try fixture.open()
        defer { try? container.close() }
        let saves = try container.history().suffix(3)
        #expect(saves.map(\.author) == ["logbook studio", "logbook studio", "logbook studio"])
        #expect(saves.map(\.changes.count) == [1, 1, 3])
    }

    @Test func compactionFromTheLogPage() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try fixture.start(writable: true)
        defer { studio.stop() }
        #expect(try studio.get("/log").text.contains("Compact now"))
        let before = try studio.server.session.current.container.store.stats()
        #expect(before.deadBytes > 0)
        let response = try studio.post("/compact")
        #expect(response.status == 303)
        #expect(response.header("location") == "/log")
        let after = try studio.server.session.current.container.store.stats()
        #expect(after.deadBytes < before.deadBytes)
        #expect(
            try studio.get("/entity/Employee").text.contains(
                #"<strong id="match-count">59</strong>"#))
    }

    @Test func aFormThatIsNotURLEncodedIsRefused() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try fixture.start(writable: true)
        defer { studio.stop() }
        let headers = studio.cookie.merging([
            "X-Logbook-Token": RunningStudio.token, "Content-Type": "application/json",
        ]) { $1 }
        let response = try request(
            port: studio.port, "/entity/Employee/1/edit", method: "POST", headers: headers,
            body: Array(#"{"attribute":"salary","value":"1"}"#.utf8))
        #expect(response.status == 415)
    }
}
