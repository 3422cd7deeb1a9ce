/// The live and dead bytes of one segment file.
public struct SegmentStats: Sendable, Equatable {
    /// The file's name, `XXXXXXXXXXXXXXXX.seg`.
    public var name: String
    /// Bytes of complete commits in the file (its header included).
    public var fileBytes: Int64
    /// Bytes its live records occupy (their keys, values and record headers).
    public var liveBytes: Int64
    /// Whether it is the segment the store appends to (compaction seals it first).
    public var isActive: Bool

    /// Bytes that hold overwritten, deleted or framing-only data.
    public var deadBytes: Int64 { fileBytes - liveBytes }
}

extension LogStore {
    /// Each segment's size and live bytes, in replay order: what ``stats()`` adds up, one
    /// segment at a time (a picture of where a compaction would reclaim space).
    /// - Throws: ``LogStoreError/closed``.
    /// - Complexity: O(segments), under the index lock.
    public func segmentStats() throws -> [SegmentStats] {
        try index.withLock { state throws(LogStoreError) -> [SegmentStats] in
            guard !state.closed else { throw .closed }
            let segments = state.segments.compactMap { $0 }
            let newest = segments.map(\.order).max()
            return segments.sorted { $0.order < $1.order }.map { segment in
                SegmentStats(
                    name: Segment.fileName(order: segment.order), fileBytes: Int64(segment.size),
                    liveBytes: segment.liveBytes, isActive: !isReadOnly && segment.order == newest)
            }
        }
    }

    /// Whether the store was opened read-only.
    private var isReadOnly: Bool { options.readOnly }
}

extension StoreFiles {
    /// The name of the key directory file, the index a clean close writes (`keys.dir`).
    package static var keyDirectoryName: String { KeyDirectoryFile.name }

    /// Sidecar files (`*.sidecar`: derived data a layer above keeps, such as the object
    /// layer's indexes), among ``otherFiles``.
    package var sidecarFiles: [String] {
        otherFiles.filter { $0.hasSuffix(LogStore.sidecarSuffix) }
    }
}
