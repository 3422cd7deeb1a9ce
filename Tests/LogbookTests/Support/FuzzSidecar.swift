// The body of the `sidecar` fuzz target (Tests/Fuzz/README.md): shared by the libFuzzer build,
// which compiles this file into the Logbook module with -D FUZZING, and by
// FuzzSidecarCorpusTests, which replays the committed corpus on every `swift test`.
import Foundation
import LogStore

#if !FUZZING
    @testable import Logbook
#endif

/// A store whose indexes every query below uses (single, compound, unique, to-one), closed so
/// that it has an index sidecar; the sidecar's bytes; each query's answer from indexes built
/// from the records; and the store opened read-only once, whose open the inputs share.
struct FuzzSidecarTemplate {
    let directory: String
    let sidecar: [UInt8]
    let answers: [String]
    /// The store, opened read-only (with no sidecar, so its indexes were built from the
    /// records). Each input's sidecar is read by a core over this open store
    /// (`ContainerCore(readingIndexesAgainOf:)`), as an open reads it: only the sidecar changes
    /// from one input to the next, so the rest of an open is not run again.
    let reader: ModelContainer
    static let sidecarFile = IndexSnapshot.sidecarName + ".sidecar"

    init(directory: String, sidecar: [UInt8], answers: [String]) throws {
        self.directory = directory
        self.sidecar = sidecar
        self.answers = answers
        reader = try Self.open(directory)
    }

    /// `(entity, predicate, sort key, ascending, limit)`: index lookups, ranges, prefixes,
    /// `nil`, lists, unique values, a relationship, ordered reads with a limit, a count.
    static let queries: [(String, String?, String?, Bool, Int?)] = [
        ("Employee", "designation == 'Engineer'", nil, true, nil),
        ("Employee", "salary > 1000 AND salary <= 2000000", "salary", true, nil),
        ("Employee", "name BEGINSWITH 'A'", "name", false, nil),
        ("Employee", "designation == nil", nil, true, nil),
        ("Employee", "email == 'e7@example.com'", nil, true, nil),
        ("Employee", "score < 0.5", "score", false, 3),
        ("Employee", "company.name == 'Acme'", nil, true, nil),
        ("Employee", "designation IN {'Engineer', 'Manager'} AND salary > 5", nil, true, nil),
        ("Employee", "salary BETWEEN {0, 1000}", nil, true, nil),
        ("Employee", nil, "name", true, 5),
        ("Employee", "joined > %@", "joined", true, nil),
        ("Company", "name == 'Acme'", nil, true, nil),
    ]

    static let schema = Schema([
        Entity(
            name: "Employee",
            attributes: [
                AttributeDescription("name", .string, indexed: true),
                AttributeDescription("designation", .string, optional: true, indexed: true),
                AttributeDescription("salary", .integer, indexed: true),
                AttributeDescription("score", .double, indexed: true),
                AttributeDescription("email", .string, optional: true, unique: true),
                AttributeDescription("joined", .date, optional: true, indexed: true),
            ],
            relationships: [RelationshipDescription("company", destination: "Company")],
            indexes: [IndexDescription(["designation", "salary"])]),
        Entity(
            name: "Company", attributes: [AttributeDescription("name", .string, unique: true)]),
    ])

    init(directory: String) throws {
        self.directory = directory
        try? FileManager.default.removeItem(atPath: directory)
        let container = try ModelContainer(
            schema: Self.schema, at: URL(fileURLWithPath: directory))
        let context = ModelContext(container)
        var companies: [any ModelObject] = []
        for name in ["Acme", "Initech", "Ünïcode"] {
            companies.append(try context.insert(entity: "Company", values: ["name": name]))
        }
        let names = ["Ann", "Bo", "Änn", "Al", "", "Zoë", "a\u{0}b"]
        let designations: [String?] = ["Engineer", "Manager", nil, "engineer", ""]
        let scores: [Double] = [0.5, -0.0, 0, .nan, .infinity, -2.5, 1e300]
        for i in 0..<70 {
            let employee = try context.insert(
                entity: "Employee",
                values: [
                    "name": names[i % names.count], "designation": designations[i % 5],
                    "salary": Int64([5, 1_000, 2_000_000, -3, 999][i % 5] + i),
                    "score": scores[i % scores.count],
                    "email": i % 3 == 0 ? nil : "e\(i)@example.com",
                    "joined": i % 4 == 0 ? nil : Date(timeIntervalSince1970: Double(i) * 86_400),
                ])
            if i % 4 != 3 { try employee.setValue(companies[i % 3], forKey: "company") }
        }
        try context.save()
        // Deletes and updates, so the sidecar is not simply the inserts in order.
        for (i, employee) in try context.fetch(entity: "Employee", where: "salary < 100")
            .enumerated()
        {
            if i % 3 == 0 { context.delete(employee) } else { employee["salary"] = Int64(i * 77) }
        }
        try context.save()
        try container.close()
        let path = directory + "/" + Self.sidecarFile
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw CocoaError(.fileNoSuchFile)
        }
        sidecar = [UInt8](bytes)
        try FileManager.default.removeItem(atPath: path)
        reader = try Self.open(directory)
        answers = try Self.answer(reader)
    }

    /// Opens the store read-only, reading the sidecar there is.
    static func open(_ directory: String) throws -> ModelContainer {
        var options = LogStoreOptions()
        options.readOnly = true
        options.autoCompactionDeadFraction = nil
        return try ModelContainer(
            schema: nil, at: URL(fileURLWithPath: directory), options: options)
    }

    /// Every query's answer from `container`.
    static func answer(_ container: ModelContainer) throws -> [String] {
        try answerNoting(container).map(\.answer)
    }

    /// Every query's answer from `container`, with the sidecar note as it stood after it
    /// (checking no chunk more than the query did).
    static func answerNoting(_ container: ModelContainer) throws -> [(
        answer: String, note: String?
    )] {
        let context = ModelContext(container)
        var answers: [(answer: String, note: String?)] = []
        for (entity, format, sort, ascending, limit) in queries {
            var descriptor = EntityFetchDescriptor(
                entityName: entity,
                predicate: try format.map {
                    try StringPredicate(
                        format: $0, arguments: [Date(timeIntervalSince1970: 20 * 86_400)])
                },
                sortBy: sort.map { [($0, ascending)] } ?? [])
            descriptor.fetchLimit = limit
            let found = try context.fetch(descriptor).map(\.persistentModelID.description)
            let count = try context.fetchCount(descriptor)
            answers.append(
                (
                    "\(count): " + found.joined(separator: ","),
                    container.core.indexes.sidecarNoteSoFar
                ))
        }
        // What `logbook stats` reads of the sidecar without loading it.
        _ = try IndexStatistics.stored(in: container.store)
        return answers
    }
}

/// Input: `mode: u8, rest`. Mode bit 0 clear: `rest` is the whole sidecar file; set: `rest` is
/// patches to the template's sidecar, 3 bytes each (offset: u16 LE, then a byte XORed in
/// there). Bit 1 then makes every CRC match again (header, contents, summary, chunks), as a
/// forger would. The sidecar is read as a read-only open reads it, over the template's open
/// store (`ContainerCore(readingIndexesAgainOf:)`), and every query is run.
///
/// Returns what broke: any error (a sidecar is a cache: a bad one is rebuilt from the records,
/// never an error); an answer different from the template's from a sidecar not forged (where
/// a chunk check failed, the indexes are rebuilt and the query runs again); or, from a forged
/// one (entries well-formed and in order but wrong pass every check at use, which cannot see
/// them without reading every record, and may mislead a query even after another chunk's check
/// failed and its entity was rebuilt), a different answer that nothing reports afterwards: neither the
/// library's consistency check (`indexProblems()`, the indexes against the records) nor a
/// later failed chunk check, which rebuilds the entity's indexes (so the consistency check then
/// finds them exact) and says so in the note.
@discardableResult
func fuzzSidecar(_ input: [UInt8], template: FuzzSidecarTemplate) -> [String] {
    guard let mode = input.first else { return [] }
    let rest = input.dropFirst()
    var bytes: [UInt8]
    if mode & 1 == 0 {
        bytes = Array(rest)
    } else {
        bytes = template.sidecar
        var patches = rest[...]
        while patches.count >= 3, !bytes.isEmpty {
            let at = Int(patches[patches.startIndex]) | Int(patches[patches.startIndex + 1]) << 8
            bytes[at % bytes.count] ^= patches[patches.startIndex + 2]
            patches = patches.dropFirst(3)
        }
    }
    let forged = mode & 2 != 0
    if forged { FuzzSidecarLayout.reseal(&bytes) }
    let path = template.directory + "/" + FuzzSidecarTemplate.sidecarFile
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
        return ["cannot write \(path)"]
    }
    defer { try? FileManager.default.removeItem(atPath: path) }
    do {
        // Not closed: the store is the template's (the core and its mapping of the sidecar go
        // when this returns).
        let container = ModelContainer(
            core: ContainerCore(readingIndexesAgainOf: template.reader.core))
        // A sidecar the open did not use: every index was built from the records, as the
        // template's reader built them for its answers (`aRefusedSidecarGivesTheTemplatesAnswers`
        // runs the queries over such a sidecar once), so the queries would only repeat them.
        // What `logbook stats` reads of it is read still.
        guard container.core.indexes.usesSidecarChunks else {
            _ = try IndexStatistics.stored(in: container.store)
            return []
        }
        let answers = try FuzzSidecarTemplate.answerNoting(container)
        var wrong: [String] = []
        var unseen: [(problem: String, note: String?)] = []
        for (i, (found, expected)) in zip(answers, template.answers).enumerated() {
            guard found.answer != expected else { continue }
            let problem = "query \(i) answered \(found.answer), expected \(expected)"
            // From a forged file even a query during which a check failed (its entity's indexes
            // then rebuilt, the query run again) may be misled by another entity's forged chunk
            // that passes its checks (`finding-forged-company-entry-beside-a-failed-chunk`).
            if !forged {
                wrong.append(problem)
            } else {
                unseen.append((problem, found.note))
            }
        }
        guard wrong.isEmpty, !unseen.isEmpty else { return wrong }
        // Checks every chunk left, first: a failure rebuilds the indexes it belongs to.
        let noteAtTheEnd = container.indexSidecarNote
        guard try container.indexProblems().isEmpty else { return [] }
        return unseen.filter { $0.note == noteAtTheEnd }.map {
            $0.problem + ", and the indexes check against the records"
        }
    } catch {
        return ["\(error)"]
    }
}

/// The layout of a sidecar file, read leniently (a field that points outside the file ends the
/// reading): where each chunk and its directory record are. For resealing and for seeds.
struct FuzzSidecarLayout {
    /// File offset of the contents (the snapshot).
    static let contents = 32
    var summaryOffset = 0
    var summaryLength = 0
    /// Per chunk: file offsets of its data and of its directory record, and its data's length
    /// (ends and entries, without padding).
    var chunks: [(data: Int, record: Int, length: Int)] = []

    init(_ bytes: [UInt8]) {
        func u32(_ at: Int) -> Int? {
            at >= 0 && at + 4 <= bytes.count
                ? (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } : nil
        }
        func u64(_ at: Int) -> Int? {
            guard at >= 0 && at + 8 <= bytes.count else { return nil }
            let value = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
            return value > UInt64(Int32.max) ? nil : Int(value)
        }
        let c = Self.contents
        guard let offset = u64(c + 8), let length = u64(c + 16) else { return }
        summaryOffset = c + offset
        summaryLength = length
        var p = summaryOffset
        let end = min(bytes.count, summaryOffset + length)
        func varint() -> Int? {
            var value = 0
            var shift = 0
            while p < end, shift < 63 {
                let byte = bytes[p]
                p += 1
                value |= Int(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value < 1 << 40 ? value : nil }
                shift += 7
            }
            return nil
        }
        func skipString() -> Bool {
            guard let n = varint(), p + n <= end else { return false }
            p += n
            return true
        }
        var chunkData = c + IndexSnapshot.headerSize
        guard varint() != nil, let entities = varint() else { return }
        for _ in 0..<min(entities, 1_000) {
            guard skipString(), varint() != nil, let indexes = varint() else { return }
            for _ in 0..<min(indexes, 1_000) {
                guard let fields = varint() else { return }
                for _ in 0..<min(fields, 1_000) {
                    guard skipString(), p < end else { return }
                    p += 1
                }
                guard varint() != nil, varint() != nil, let count = varint(),
                    varint() != nil
                else { return }
                for _ in 0..<min(count, 100_000) {
                    guard let entries = u32(p), let byteCount = u32(p + 4), p + 20 <= end else {
                        return
                    }
                    let length = entries * 4 + byteCount
                    chunks.append((chunkData, p, length))
                    chunkData += (length + 3) & ~3
                    p += 20
                }
            }
        }
    }

    /// Makes every CRC of `bytes` match: each chunk's, the summary's, the header's and the
    /// contents'.
    static func reseal(_ bytes: inout [UInt8]) {
        func crc(_ range: Range<Int>, extending start: UInt32 = 0) -> UInt32 {
            bytes.withUnsafeBytes {
                MappedSidecar.crc32c(UnsafeRawBufferPointer(rebasing: $0[range]), extending: start)
            }
        }
        func store(_ value: UInt32, at: Int) {
            guard at >= 0, at + 4 <= bytes.count else { return }
            for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
        }
        let layout = FuzzSidecarLayout(bytes)
        for chunk in layout.chunks where chunk.data + chunk.length <= bytes.count {
            store(crc(chunk.data..<chunk.data + chunk.length), at: chunk.record + 16)
        }
        let c = contents
        if layout.summaryOffset >= c + IndexSnapshot.headerSize,
            layout.summaryOffset + layout.summaryLength <= bytes.count
        {
            let header = crc(c + 8..<c + 32)
            store(
                crc(
                    layout.summaryOffset..<layout.summaryOffset + layout.summaryLength,
                    extending: header), at: c + 4)
        }
        guard bytes.count >= 36 else { return }
        store(crc(0..<20), at: 20)
        store(crc(24..<bytes.count - 4), at: bytes.count - 4)
    }
}

/// The entry ends of `chunk` (of a ``FuzzSidecarLayout`` of `bytes`).
func readChunkEnds(_ bytes: [UInt8], _ chunk: (data: Int, record: Int, length: Int)) -> [Int] {
    func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
    return (0..<u32(chunk.record)).map { u32(chunk.data + 4 * $0) }
}
