import Foundation
import TestSupport
import Testing

@testable import logbook

/// The overview of a store that needed repairs at open: the recovery report lists what was
/// cut or ignored, and the health line says what the library's check found.
@Suite struct StudioRecoveryTests {
    @Test func aTornTailIsReportedOnTheOverview() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let segment = try #require(segmentFiles(fixture.path).last)
        let bytes = readFile(segment)
        // A crash: no closing sync mark, and the last commit loses its end.
        writeFile(segment, Array(bytes.dropLast(25 + 3)))
        let studio = try fixture.start()
        defer { studio.stop() }
        let page = try studio.get("/")
        #expect(page.status == 200)
        let main = mainPart(page.text)
        #expect(!main.contains("A clean open"))
        #expect(main.contains("<p class=\"bad\">Repairs were made:"))
        #expect(main.contains("<li>cut 49 B at offset "))
        #expect(main.contains("<li>hint file ignored: "))
        #expect(main.contains("The index was rebuilt from hint files and segments."))
        // The health check finds the tail and the stale hint as warnings.
        #expect(main.contains("0 errors, 2 warnings</p>"))
        #expect(main.contains("<li class=\"warning\">warning: "))
        #expect(main.contains("(torn tail: an incomplete last commit"))
        // The last save, cut with the tail, is not shown: Employee 60 is back.
        #expect(mainPart(try studio.get("/entity/Employee/60").text).contains("Employee/60"))
    }
}
