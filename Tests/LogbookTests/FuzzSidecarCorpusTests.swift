import Foundation
import LogStore
import TestSupport
import Testing

@testable import Logbook

/// Replays the committed corpus of the `sidecar` fuzz target (Tests/Fuzz/corpus/sidecar) on every
/// `swift test`: damaged and forged index sidecars over a sound store, which must never change
/// an answer nor make a fetch fail.
@Suite struct FuzzSidecarCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/sidecar").path

    @Test func sidecarTargetCorpusReplaysWithoutFinding() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus).sorted()
        #expect(names.count >= 10)
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let template = try FuzzSidecarTemplate(directory: dir.child("store"))
        for name in names {
            for problem in fuzzSidecar(readFile(Self.corpus + "/" + name), template: template) {
                Issue.record("\(name): \(problem)")
            }
        }
    }

    /// The template's sidecar is read (every index from it) and the queries use indexes; the
    /// body's check can fail.
    @Test func theTemplateSidecarIsUsedAndAnswersAreCompared() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let template = try FuzzSidecarTemplate(directory: dir.child("store"))
        #expect(template.answers.count == FuzzSidecarTemplate.queries.count)
        let empty = template.answers.filter { $0.hasPrefix("0:") }
        #expect(empty.isEmpty, "\(template.answers)")
        let path = template.directory + "/" + FuzzSidecarTemplate.sidecarFile
        writeFile(path, template.sidecar)
        var options = LogStoreOptions()
        options.readOnly = true
        let container = try ModelContainer(
            schema: nil, at: URL(fileURLWithPath: template.directory), options: options)
        #expect(container.core.indexes.readFromSidecar)
        try container.close()
        try FileManager.default.removeItem(atPath: path)
        #expect(fuzzSidecar([0] + template.sidecar, template: template).isEmpty)
        #expect(fuzzSidecar([2] + template.sidecar, template: template).isEmpty)
        let layout = FuzzSidecarLayout(template.sidecar)
        #expect(layout.chunks.count >= 8)
        #expect(layout.summaryOffset + layout.summaryLength == template.sidecar.count - 4)
        // The answers must match: the same file under other answers is a finding.
        let wrong = try FuzzSidecarTemplate(
            directory: template.directory, sidecar: template.sidecar,
            answers: template.answers.reversed())
        #expect(!fuzzSidecar([0] + template.sidecar, template: wrong).isEmpty)
    }

    /// The body stops (after what `logbook stats` reads) at a sidecar the open does not use:
    /// every index is then built from the records, as for the template's answers. A whole open
    /// over such a sidecar gives those answers, and the core the body makes uses no chunk of it.
    @Test func aRefusedSidecarGivesTheTemplatesAnswers() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let template = try FuzzSidecarTemplate(directory: dir.child("store"))
        var bytes = template.sidecar
        bytes[2] ^= 0x41  // the file's magic
        let path = template.directory + "/" + FuzzSidecarTemplate.sidecarFile
        writeFile(path, bytes)
        let container = try FuzzSidecarTemplate.open(template.directory)
        defer { try? container.close() }
        #expect(!container.core.indexes.usesSidecarChunks)
        #expect(try FuzzSidecarTemplate.answer(container) == template.answers)
        let again = ContainerCore(readingIndexesAgainOf: template.reader.core)
        #expect(!again.indexes.usesSidecarChunks)
        writeFile(path, template.sidecar)
        #expect(
            ContainerCore(readingIndexesAgainOf: template.reader.core).indexes.usesSidecarChunks)
        try FileManager.default.removeItem(atPath: path)
        #expect(fuzzSidecar([0] + bytes, template: template) == [])
    }

    /// Entries out of order in a forged chunk (every CRC right) hide others from a lookup: the
    /// check before the chunk's first use finds them, and the query runs again on indexes built
    /// from the records (the target's finding `finding-forged-chunk-entries-out-of-order`: 2
    /// Engineers of 9). Across two chunks: `IndexSidecarTests`.
    @Test func entriesOutOfOrderFailTheChunkCheck() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let template = try FuzzSidecarTemplate(directory: dir.child("store"))
        var bytes = template.sidecar
        let chunk = FuzzSidecarLayout(bytes).chunks[1]
        let ends = readChunkEnds(bytes, chunk)
        // An entry in the middle raised above the one after it.
        let i = ends.count / 2
        let entries = chunk.data + 4 * ends.count
        bytes[entries + ends[i - 1]] = bytes[entries + ends[i]] &+ 1
        #expect(bytes[entries + ends[i - 1]] != 0)
        FuzzSidecarLayout.reseal(&bytes)
        writeFile(template.directory + "/" + FuzzSidecarTemplate.sidecarFile, bytes)
        let container = try FuzzSidecarTemplate.open(template.directory)
        defer { try? container.close() }
        #expect(try FuzzSidecarTemplate.answer(container) == template.answers)
        let note = container.indexSidecarNote ?? ""
        #expect(note.contains("entries are not in order"), "\(note)")
        #expect(try container.indexProblems() == [])
    }

    /// The target's `finding-forged-company-entry-beside-a-failed-chunk` (a false finding of the
    /// body): a forged sidecar with entries out of order in a chunk of Employee's indexes and a
    /// well-formed wrong entry in Company's name index. `company.name == 'Acme'` fails the
    /// Employee chunk's check, rebuilds Employee's indexes and runs again, and still answers
    /// another company's employees: Company's forged entry passes every check at use. The
    /// consistency check reports it, which is all a forged file owes.
    @Test func aForgedChunkOfAnotherEntityMisleadsAQueryWhoseCheckFailed() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let template = try FuzzSidecarTemplate(directory: dir.child("store"))
        let input = readFile(Self.corpus + "/finding-forged-company-entry-beside-a-failed-chunk")
        #expect(fuzzSidecar(input, template: template) == [])
        var bytes = template.sidecar
        var patches = input.dropFirst()[...]
        while patches.count >= 3 {
            let at = Int(patches[patches.startIndex]) | Int(patches[patches.startIndex + 1]) << 8
            bytes[at % bytes.count] ^= patches[patches.startIndex + 2]
            patches = patches.dropFirst(3)
        }
        FuzzSidecarLayout.reseal(&bytes)
        writeFile(template.directory + "/" + FuzzSidecarTemplate.sidecarFile, bytes)
        let container = try FuzzSidecarTemplate.open(template.directory)
        defer { try? container.close() }
        let answers = try FuzzSidecarTemplate.answerNoting(container)
        let query = 6  // company.name == 'Acme'
        #expect(answers[query].answer != template.answers[query])
        #expect(answers[query - 1].note == nil)
        #expect(answers[query].note?.contains("entries are not in order") == true)
        let problems = try container.indexProblems()
        #expect(problems.contains { $0.hasPrefix("Company(name)") }, "\(problems)")
    }

    /// `LOGBOOK_WRITE_FUZZ_SEEDS=1 swift test --filter writesSidecarSeeds` (re)writes the seeds into
    /// Tests/Fuzz/corpus/sidecar, named `seed-…`: the template's sidecar whole, and patches of
    /// each part of it, plain and resealed.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["LOGBOOK_WRITE_FUZZ_SEEDS"] != nil))
    func writesSidecarSeeds() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let template = try FuzzSidecarTemplate(directory: dir.child("store"))
        let file = template.sidecar
        let layout = FuzzSidecarLayout(file)
        var seeds: [(String, [UInt8])] = [("whole", [0] + file), ("whole-resealed", [2] + file)]
        let c = FuzzSidecarLayout.contents
        var parts: [(String, Int)] = [
            ("magic", 2), ("version", 8), ("sequence", 12), ("length", 24), ("format", c),
            ("summary-offset", c + 8), ("summary-length", c + 16), ("zero", c + 24),
            ("schema-version", layout.summaryOffset), ("entity-count", layout.summaryOffset + 1),
            ("entity-name", layout.summaryOffset + 3), ("last-byte", file.count - 5),
        ]
        for (i, chunk) in layout.chunks.enumerated() where i % 3 == 0 {
            parts += [
                ("chunk-\(i)-end", chunk.data), ("chunk-\(i)-entry", chunk.data + chunk.length - 3),
                ("chunk-\(i)-entries", chunk.record), ("chunk-\(i)-bytes", chunk.record + 4),
                ("chunk-\(i)-head", chunk.record + 8),
            ]
        }
        for (name, offset) in parts {
            let patch: [UInt8] = [UInt8(offset & 0xFF), UInt8(offset >> 8), 0x21]
            seeds.append(("patch-" + name, [1] + patch))
            seeds.append(("forged-" + name, [3] + patch))
        }
        for (name, input) in seeds {
            writeFile(Self.corpus + "/seed-" + name, input)
        }
    }
}
