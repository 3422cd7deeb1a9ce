import Foundation
import Logbook
import TestSupport
import Testing

/// `verify` checks that every to-one relationship points at an object that exists.
@Suite struct VerifyReferencesTests {
    private func companyStore(at path: String) throws {
        let container = try ModelContainer(
            for: [Company.self, StaffedEmployee.self], at: URL(filePath: path))
        let context = ModelContext(container)
        let acme = Company(name: "Acme")
        context.insert(acme)
        context.insert(StaffedEmployee(name: "Ann", salary: 2_000_000, company: acme))
        context.insert(StaffedEmployee(name: "Bo", salary: 1_000, company: nil))
        try context.save()
        try container.close()
    }

    @Test func referencesThatResolveAreClean() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try companyStore(at: path)
        let result = try CLI.run(["verify", path])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("0 errors"))
    }

    @Test func aToOneRelationshipToAMissingObjectIsDamage() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try companyStore(at: path)
        // Remove the company under the object layer's feet: Ann's company now dangles.
        do {
            let store = try LogStore(path: path)
            let key: [UInt8] = withUnsafeBytes(of: UInt64(1).bigEndian) { Array($0) }
            #expect(try store.contains(key, in: "Company"))
            try store.delete(key, in: "Company")
            try store.close()
        }
        let result = try CLI.run(["verify", path])
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "StaffedEmployee/1: company points at Company/1, which does not exist"),
            "\(result.stdout)")
        #expect(result.stdout.contains("verify: DAMAGED"))
    }
}
