import Foundation
import Logbook

/// A temporary directory for a Logbook store, with helpers to open containers on it.
public struct LogbookFixture: Sendable {
    /// The directory holding the store.
    public let directory: TemporaryDirectory

    /// A fresh, empty fixture.
    public init(_ label: String = "logbook-objects") { directory = TemporaryDirectory(label) }

    /// The store's URL.
    public var url: URL { URL(fileURLWithPath: directory.child("store.logbook")) }

    /// Opens a container for `types` on the fixture's store.
    public func open(_ types: [any PersistentModel.Type] = [Employee.self]) throws -> ModelContainer
    {
        try ModelContainer(for: types, at: url)
    }

    /// Opens a container with a dynamic schema.
    public func open(schema: Schema?) throws -> ModelContainer {
        try ModelContainer(schema: schema, at: url)
    }

    /// Removes the store.
    public func remove() { directory.remove() }
}
