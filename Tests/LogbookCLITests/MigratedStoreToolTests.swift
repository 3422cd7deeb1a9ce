import Foundation
import Logbook
import TestSupport
import Testing

/// The read-only tools on a store whose schema evolved (a rename through `originalName` and an
/// `Int32` widened to `Int64`, records of both versions): each works, reads the older records
/// under today's names, and leaves every byte of the store as it was.
@Suite struct MigratedStoreToolTests {
    static func makeStore(at path: String) throws {
        let url = URL(fileURLWithPath: path)
        let v1 = Schema([
            Entity(
                name: "Employee",
                attributes: [
                    AttributeDescription("employee_Name", .string),
                    AttributeDescription("level", .int32),
                ])
        ])
        let first = try ModelContainer(schema: v1, at: url)
        let context = ModelContext(first)
        try context.insert(entity: "Employee", values: ["employee_Name": "Ann", "level": 3])
        try context.insert(entity: "Employee", values: ["employee_Name": "Cy", "level": 4])
        try context.save()
        try first.close()
        let v2 = Schema([
            Entity(
                name: "Employee",
                attributes: [
                    AttributeDescription("name", .string, originalName: "employee_Name"),
                    AttributeDescription("level", .integer),
                ])
        ])
        let second = try ModelContainer(schema: v2, at: url)
        let later = ModelContext(second)
        try later.insert(entity: "Employee", values: ["name": "Bo", "level": 5])
        try later.save()
        try second.close()
    }

    private func files(_ path: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            files[name] = FileManager.default.contents(atPath: path + "/" + name)
        }
        return files
    }

    @Test func readOnlyToolsReadTheOlderRecordsAndChangeNoByte() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Self.makeStore(at: path)
        let before = files(path)
        for arguments in [
            ["dump", path], ["verify", path], ["stats", path], ["export", path],
            ["history", path], ["changes", path],
        ] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0, "\(arguments[0]): \(result.stderr)")
            #expect(files(path) == before, "\(arguments[0]) changed the store")
        }
        // Each row without its segment, offset, sequence and type, spaces collapsed.
        let dump = try CLI.run(["dump", path]).stdout.split(separator: "\n").map {
            $0.split(separator: " ").dropFirst(4).joined(separator: " ")
        }
        #expect(dump.contains("Employee 1 name=\"Ann\" level=3"), "\(dump)")
        #expect(dump.contains("Employee 2 name=\"Cy\" level=4"), "\(dump)")
        #expect(dump.contains("Employee 3 name=\"Bo\" level=5"), "\(dump)")
        let export = try CLI.run(["export", path]).stdout
        #expect(export.contains("\"name\":\"Cy\""), "\(export)")
        #expect(!export.contains("employee_Name"), "\(export)")
    }
}
