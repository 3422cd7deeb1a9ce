import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

@testable import logbook

/// Live updates: `/events` tells open pages of each save, also one another process makes, and
/// the pages read after it show the save.
@Suite struct StudioLiveTests {
    /// The `logbook` executable this package built.
    static let tool = builtExecutable("logbook", overriddenBy: "LOGBOOK_CLI")

    /// Opens `/events` and returns the connection once the stream has started.
    static func follow(_ studio: RunningStudio) throws -> TestConnection {
        let events = try TestConnection(port: studio.port)
        events.send(
            "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\n"
                + "Cookie: logbook_studio_\(studio.port)=\(RunningStudio.token)\r\n\r\n")
        let head = try events.readResponse(head: true)
        #expect(head.status == 200)
        #expect(head.header("content-type") == "text/event-stream; charset=utf-8")
        #expect(head.header("transfer-encoding") == "chunked")
        let hello = String(
            decoding: try events.chunk(try #require(try events.nextChunkSize())), as: UTF8.self)
        #expect(hello.hasPrefix("retry: 3000\n"))
        return events
    }

    /// The next `save` event's data, skipping keep-alive comments; `nil` if the stream ends or
    /// none comes within 30 s.
    static func nextSave(_ events: TestConnection) throws -> String? {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, let size = try events.nextChunkSize(), size > 0 {
            let text = String(decoding: try events.chunk(size), as: UTF8.self)
            if text.hasPrefix("event: save\ndata: ") {
                return String(text.dropFirst("event: save\ndata: ".count).prefix { $0 != "\n" })
            }
        }
        return nil
    }

    @Test func aSaveByAnotherProcessReachesTheOpenPages() throws {
        let tool = try #require(Self.tool, "logbook is not built")
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try fixture.start()
        defer { studio.stop() }
        let events = try Self.follow(studio)
        let rows = fixture.directory.child("rows.jsonl")
        writeFile(
            rows, b(#"{"_entity":"Employee","name":"Zed","designation":"Pilot","salary":7}"# + "\n")
        )
        let importer = Process()
        importer.executableURL = URL(fileURLWithPath: tool)
        importer.arguments = ["import", fixture.path, rows]
        importer.standardOutput = FileHandle.nullDevice
        try importer.run()
        importer.waitUntilExit()
        #expect(importer.terminationStatus == 0)
        let event = try #require(try Self.nextSave(events))
        #expect(event.contains(#""saves":1"#))
        #expect(event.contains(#""inserted":1"#))
        #expect(event.contains(#""entities":["Employee"]"#))
        // The page read after the event shows the new object: the studio opened the store again.
        let page = mainPart(try studio.get("/entity/Employee?where=name+%3D%3D+%27Zed%27").text)
        #expect(page.contains(#"<strong id="match-count">1</strong>"#))
        #expect(mainPart(try studio.get("/").text).contains(#"<td class="num">60</td>"#))
        let history = mainPart(try studio.get("/history").text)
        #expect(history.contains(#"Save 7</a></h2>"#) && history.contains("1 inserted"))
    }

    @Test func aPageThatShowsAnOlderStateHearsOfItAtOnce() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try fixture.start(writable: true)
        defer { studio.stop() }
        let before = try studio.get("/entity/Employee").text
        #expect(before.contains(#"data-sequence="6""#))
        #expect(
            try studio.post("/entity/Employee/3/edit", form: "attribute=salary&value=2").status
                == 303)
        // A page rendered at sequence 6 starts following after the save of sequence 7.
        let events = try TestConnection(port: studio.port)
        events.send(
            "GET /events?seen=6 HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\n"
                + "Cookie: logbook_studio_\(studio.port)=\(RunningStudio.token)\r\n\r\n")
        #expect(try events.readResponse(head: true).status == 200)
        _ = try events.chunk(try #require(try events.nextChunkSize()))
        let event = try #require(try Self.nextSave(events))
        #expect(event.contains(#""saves":0"#))
    }

    @Test func theStudiosOwnWritesAreEventsToo() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try fixture.start(writable: true)
        defer { studio.stop() }
        let events = try Self.follow(studio)
        #expect(
            try studio.post("/entity/Employee/3/edit", form: "attribute=salary&value=1").status
                == 303)
        let event = try #require(try Self.nextSave(events))
        #expect(event.contains(#""updated":1"#))
    }

    @Test func streamsEndWhenTheServerStops() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try fixture.start()
        let events = try Self.follow(studio)
        let start = ContinuousClock.now
        studio.stop()
        #expect(try Self.nextSave(events) == nil)
        #expect(ContinuousClock.now - start < .seconds(4))
    }
}
