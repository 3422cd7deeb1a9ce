import Foundation
import Synchronization
import TestSupport
import Testing

/// Many clients at once against `logbook studio` (a child process): paging in key order,
/// filtering with and without the index, sorting, objects, the other views. No request may
/// fail, and the server's memory must stay under a bound however long it runs.
///
/// The default tier: 8 clients for 1 s on 10,000 employees. The long tier
/// (`LOGBOOK_LONG_TESTS=1`): 50 clients for 30 s on 1,000,000 employees; run it on a release
/// build of the tool:
/// `swift build -c release --product logbook && LOGBOOK_LONG_TESTS=1
/// LOGBOOK_CLI=.build/release/logbook swift test --filter StudioLoadTests` (about 2 minutes,
/// most of it writing the store).
@Suite struct StudioLoadTests {
    static let long = TestTier.isLong

    @Test func concurrentClientsPageAndFilterWithoutErrorInBoundedMemory() throws {
        let objects = Self.long ? 1_000_000 : 10_000
        let clients = Self.long ? 50 : 8
        // The clients and the server take every core they can for as long as it runs, a whole
        // swift test's too.
        let duration: Duration = Self.long ? .seconds(30) : .seconds(1)
        // The bound: the store's index and caches, the key lists of a few queries (8 bytes a
        // match, at most 32 MiB held), and a thread and buffers per connection.
        let boundKB = Self.long ? 512 << 10 : 160 << 10
        let tool = try #require(StudioLiveTests.tool, "logbook is not built")
        let directory = TemporaryDirectory("studio-load")
        defer { directory.remove() }
        let store = directory.child("store")
        try Self.importEmployees(objects, into: store, tool: tool, directory: directory)
        let server = try SpawnedProcess(
            tool, ["studio", store], stdout: directory.child("out"), stderr: directory.child("err"))
        defer { server.signal(SIGTERM) }
        let (port, token) = try Self.address(of: directory.child("out"), server)

        let stats = Mutex<(requests: Int, errors: [String], slowest: Duration)>((0, [], .zero))
        let end = ContinuousClock.now + duration
        let seed = testSeed("studio load")
        let group = DispatchGroup()
        for client in 0..<clients {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var rng = SeededGenerator(seed: seed &+ UInt64(client))
                while ContinuousClock.now < end {
                    let target = Self.randomTarget(objects: objects, &rng)
                    let start = ContinuousClock.now
                    let outcome: String?
                    do {
                        let response = try request(port: port, target + "&token=\(token)")
                        outcome =
                            response.status == 200 && response.text.hasSuffix("</html>\n")
                            ? nil : "\(target): \(response.status) \(response.text.prefix(200))"
                    } catch {
                        outcome = "\(target): \(error)"
                    }
                    let elapsed = ContinuousClock.now - start
                    stats.withLock {
                        $0.requests += 1
                        if let outcome, $0.errors.count < 10 { $0.errors.append(outcome) }
                        $0.slowest = max($0.slowest, elapsed)
                    }
                }
            }
        }
        // Resident memory every quarter second (an eighth in the default tier's one second,
        // so that its last third still holds a few samples): it may grow while caches fill,
        // then not.
        let interval = Self.long ? 250 : 125
        var samples: [Int] = []
        while group.wait(timeout: .now() + .milliseconds(interval)) == .timedOut {
            samples.append(server.residentKB ?? 0)
        }
        let peakKB = max(samples.max() ?? 0, server.peakResidentKB ?? 0)
        let early = samples.prefix(samples.count * 2 / 3).max() ?? 0
        let late = samples.suffix(samples.count / 3).max() ?? 0
        let (requests, errors, slowest) = stats.withLock { $0 }
        print(
            "studio load: \(clients) clients, \(objects) objects: \(requests) requests, "
                + "\(samples.count) memory samples, "
                + "slowest \(slowest), peak RSS \(peakKB >> 10) MiB (\(early >> 10) MiB in the "
                + "first two thirds, \(late >> 10) MiB in the last)")
        #expect(errors.isEmpty, "\(errors)")
        #expect(requests >= clients * 2)
        #expect(peakKB > 0 && peakKB < boundKB, "peak RSS \(peakKB) KiB")
        #expect(late <= early + 64 << 10, "resident \(early) KiB, then \(late) KiB")
        #expect(server.isRunning)
    }

    /// A random request of a reader: mostly pages in key order and of filters.
    static func randomTarget(objects: Int, _ rng: inout SeededGenerator) -> String {
        let offset = Int.random(in: 0..<max(1, objects / 50), using: &rng) * 50
        let designation = LargeStore.designations.randomElement(using: &rng)!
        switch Int.random(in: 0..<20, using: &rng) {
        case 0..<9: return "/entity/Employee?offset=\(offset)"
        case 9..<13:
            return
                "/entity/Employee?where=designation+%3D%3D+%27\(designation)%27&offset=\(offset / 9)"
        case 13..<15:
            return
                "/entity/Employee?sort=salary&desc=\(Bool.random(using: &rng) ? 1 : 0)&offset=\(offset)"
        case 15: return "/entity/Employee?where=salary+%3E+190000&offset=\(offset / 20)"
        case 16: return "/entity/Employee/\(Int.random(in: 1...objects, using: &rng))?x=1"
        case 17: return "/entity/Employee?where=name+BEGINSWITH+%27Ann%27&sort=name"
        case 18: return "/log?x=1"
        default: return "/history?x=1"
        }
    }

    /// Writes `count` employees with `logbook import`, 100,000 to a save.
    static func importEmployees(
        _ count: Int, into store: String, tool: String, directory: TemporaryDirectory
    )
        throws
    {
        let schema =
            #"{"_schema":{"version":1,"entities":[{"name":"Employee","attributes":["#
            + #"{"name":"name","type":"String","optional":false,"indexed":false,"unique":false,"default":""},"#
            + #"{"name":"designation","type":"String","optional":false,"indexed":true,"unique":false,"default":""},"#
            + #"{"name":"salary","type":"Int64","optional":false,"indexed":false,"unique":false,"default":0}]}]}}"#
        var start = 0
        while start < count {
            // The schema goes with the first batch only: it makes the store.
            var lines = start == 0 ? schema + "\n" : ""
            for i in start..<min(start + 100_000, count) {
                let e = LargeStore.employee(i)
                lines +=
                    #"{"_entity":"Employee","name":"\#(e.name)","designation":"\#(e.designation)","salary":\#(e.salary)}"#
                    + "\n"
            }
            let file = directory.child("rows.jsonl")
            writeFile(file, Array(lines.utf8))
            let importer = try SpawnedProcess(
                tool, ["import", store, file], stdout: directory.child("import.out"),
                stderr: directory.child("import.err"))
            #expect(importer.exitStatus(within: 600) == 0)
            start += 100_000
        }
    }

    /// The port and token the studio printed.
    static func address(of output: String, _ server: SpawnedProcess) throws -> (UInt16, String) {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline && server.isRunning {
            let text = String(decoding: readFile(output), as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("http://") }),
                let port = line.split(separator: ":").last?.split(separator: "/").first.flatMap({
                    UInt16($0)
                }),
                let token = line.components(separatedBy: "token=").last
            {
                return (port, token)
            }
            usleep(20_000)
        }
        throw TestClientError.closedBeforeResponse
    }
}
