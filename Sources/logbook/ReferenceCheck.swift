import Foundation
import Logbook

/// `verify`'s relationship check: every stored to-one relationship names an object that exists.
enum ReferenceCheck {
    /// One finding per dangling reference, in entity, then primary-key order.
    static func danglingReferences(in store: LogStore, path: String) throws -> [VerifyOutcome
        .Finding]
    {
        let decoder = try RecordDecoder(store: store)
        var findings: [VerifyOutcome.Finding] = []
        for entity in decoder.schema.entities {
            let toOne = entity.relationships.filter { !$0.isToMany }
            guard !toOne.isEmpty else { continue }
            for record in try decoder.records(of: entity.name, in: store) {
                let values = record.values
                for relationship in toOne {
                    guard case .integer(let target)? = values[relationship.name] else { continue }
                    let key = withUnsafeBytes(of: UInt64(bitPattern: target).bigEndian) {
                        Array($0)
                    }
                    if try !store.contains(key, in: relationship.destination) {
                        findings.append(
                            .init(
                                path: path, offset: nil,
                                message: "\(record.id): \(relationship.name) points at "
                                    + "\(relationship.destination)/\(target), which does not exist")
                        )
                    }
                }
            }
        }
        return findings
    }
}
