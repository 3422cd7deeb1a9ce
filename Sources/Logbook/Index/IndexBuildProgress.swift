/// How far an open has come in building an entity's indexes from its records: what
/// ``ModelConfiguration/indexBuildProgress`` receives.
///
/// An open builds the ordered indexes (`@Attribute(.indexed)`, `#Index`, unique constraints) of
/// an entity when the store has no usable copy of them: the first open after they were added to
/// the model, or after the store was written by a tool (`logbook import`) or changed by a
/// process that did not keep them. All of one entity's indexes are built in one pass over its
/// records, so one report covers them all. A value type, `Sendable`.
public struct IndexBuildProgress: Sendable, Hashable, CustomStringConvertible {
    /// The entity whose indexes are being built.
    public var entity: String
    /// The indexes being built, each as the names of its attributes, in the schema's order.
    public var indexes: [[String]]
    /// How many of the entity's records have been read.
    public var done: Int
    /// How many records the entity has (as the open found them).
    public var total: Int

    /// A report of `done` of `total` records of `entity` read for `indexes`.
    public init(entity: String, indexes: [[String]], done: Int, total: Int) {
        self.entity = entity
        self.indexes = indexes
        self.done = done
        self.total = total
    }

    /// The share read, from 0 to 1 (1 for an entity without records).
    public var fraction: Double { total == 0 ? 1 : Double(done) / Double(total) }

    /// `Employee (designation): 500000 of 1000000 records`.
    public var description: String {
        let names = indexes.map { $0.joined(separator: ", ") }.joined(separator: "; ")
        return "\(entity) (\(names)): \(done) of \(total) records"
    }
}

/// What receives ``IndexBuildProgress`` reports during an open.
public typealias IndexBuildProgressHandler = @Sendable (IndexBuildProgress) -> Void

/// Reports the progress of one entity's build: the first report at 0, then about every
/// `stride` records, and the last at `total`.
struct IndexBuildReporter {
    let handler: IndexBuildProgressHandler
    var progress: IndexBuildProgress
    private var next: Int
    private let stride: Int

    init(
        handler: @escaping IndexBuildProgressHandler, entity: String, indexes: [[String]],
        total: Int
    ) {
        self.handler = handler
        progress = IndexBuildProgress(entity: entity, indexes: indexes, done: 0, total: total)
        // About a hundred reports for a large entity, none closer than 4,096 records apart.
        stride = max(total / 100, 4_096)
        next = stride
        handler(progress)
    }

    /// Counts one record read.
    @inline(__always)
    mutating func advance() {
        progress.done += 1
        // The report at `total` is `finish()`'s.
        if progress.done >= next && progress.done < progress.total {
            next += stride
            handler(progress)
        }
    }

    /// The last report: every record read (`total` is set to the count read, in case the
    /// entity changed under a read-only open).
    mutating func finish() {
        progress.total = progress.done
        handler(progress)
    }
}
