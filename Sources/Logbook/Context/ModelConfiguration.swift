import Foundation
import LogStore

/// Where and how a ``ModelContainer`` keeps its store — SwiftData's `ModelConfiguration`.
///
/// ```swift
/// let container = try ModelContainer(
///     for: Employee.self, Company.self,
///     configurations: ModelConfiguration(isStoredInMemoryOnly: true))
/// ```
/// A value type, `Sendable`.
public struct ModelConfiguration: Sendable {
    /// The store's directory (for an in-memory store, its name in this process's memory).
    public var url: URL
    /// Whether the store lives only in this process's memory: the same engine and formats, no
    /// file, gone with the container. For tests and previews.
    public var isStoredInMemoryOnly: Bool
    /// Whether contexts may save; `false` opens the store read-only.
    public var allowsSave: Bool
    /// Engine options (durability, segment size, automatic compaction…).
    public var options: LogStoreOptions
    /// Told how an open goes when it builds ordered indexes from the records (the first open
    /// after an index or a unique constraint was added to the model, or after a tool wrote the
    /// store): a report when an entity's build starts, about a hundred as its records are read,
    /// and one when its indexes are ready. An open that reads the indexes the store keeps
    /// reports nothing, and so does the build of a text index (`.searchable`), not covered yet. Called synchronously on the thread that opens the container, during its init,
    /// so it must not use the container; hand the reports to the app's UI from there
    /// (`Task { @MainActor in … }`). `nil`, the default, reports nothing.
    public var indexBuildProgress: IndexBuildProgressHandler?

    /// A configuration. `name` names the store (`<name>.logbook` in the default location)
    /// unless `url` is given; `indexBuildProgress` is told how building indexes goes (see
    /// ``indexBuildProgress``).
    public init(
        _ name: String? = nil, url: URL? = nil, isStoredInMemoryOnly: Bool = false,
        allowsSave: Bool = true, options: LogStoreOptions = LogStoreOptions(),
        indexBuildProgress: IndexBuildProgressHandler? = nil
    ) {
        if let url {
            self.url = url
        } else if isStoredInMemoryOnly {
            self.url = URL(
                fileURLWithPath: "/memory/\(name ?? UUID().uuidString).logbook", isDirectory: true)
        } else if let name {
            self.url = ModelContainer.defaultURL.deletingLastPathComponent().appending(
                path: "\(name).logbook", directoryHint: .isDirectory)
        } else {
            self.url = ModelContainer.defaultURL
        }
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.options = options
        self.indexBuildProgress = indexBuildProgress
    }

    /// The engine options this configuration opens the store with.
    var storeOptions: LogStoreOptions {
        var options = self.options
        if !allowsSave { options.readOnly = true }
        if isStoredInMemoryOnly {
            let memory = MemoryFileSystem()
            // The engine makes the store's directory, not its parents.
            try? memory.makeDirectories(url.deletingLastPathComponent().path)
            options.fileSystem = memory
        }
        return options
    }
}

extension ModelContainer {
    /// Opens (creating if needed) a store for the entities of `types`, as `configuration`
    /// says: SwiftData's `ModelContainer(for:configurations:)`.
    /// - Throws: as `init(for:at:options:)`.
    public convenience init(
        for types: any PersistentModel.Type...,
        configurations configuration: ModelConfiguration = ModelConfiguration()
    ) throws {
        try self.init(for: types, configuration: configuration)
    }

    /// Opens a store for the model classes of `schema` (`Schema([Employee.self])`),
    /// as `configurations` says: SwiftData's `ModelContainer(for: schema, configurations: [config])`.
    /// Logbook opens one store per container, so at most one configuration is taken (none:
    /// the default one).
    /// - Throws: ``LogbookError/invalidSchema(_:)`` for more than one configuration or a schema
    ///   not made from classes (open one by name with `init(schema:at:options:)`), and as
    ///   `init(for:at:options:)`.
    public convenience init(for schema: Schema, configurations: [ModelConfiguration]) throws {
        guard configurations.count <= 1 else {
            throw LogbookError.invalidSchema(
                "a container opens one store, so it takes one configuration, not \(configurations.count)"
            )
        }
        guard let types = try schema.modelTypes() else {
            throw LogbookError.invalidSchema(
                "the schema was not made from model classes: open it with ModelContainer(schema:at:options:)"
            )
        }
        try self.init(for: types, configuration: configurations.first ?? ModelConfiguration())
    }

    /// Opens a store for the entities of `types`, as `configuration` says.
    /// - Throws: as `init(for:at:options:)`.
    public convenience init(
        for types: [any PersistentModel.Type], configuration: ModelConfiguration
    ) throws {
        let layouts = try types.map { try ModelLayout.of($0) }
        try self.init(
            core: ContainerCore(
                schema: Schema(try ModelLayout.entities(resolving: layouts)), layouts: layouts,
                url: configuration.url, options: configuration.storeOptions,
                indexBuildProgress: configuration.indexBuildProgress))
    }

    /// Opens (creating if needed) the store at `url` for the entities of `types`, listed one by
    /// one: `ModelContainer(for: Employee.self, Company.self, at: url)`.
    /// - Throws: as `init(for:at:options:)`.
    public convenience init(
        for types: any PersistentModel.Type..., at url: URL?,
        options: LogStoreOptions = LogStoreOptions()
    ) throws {
        try self.init(for: types, at: url, options: options)
    }
}
