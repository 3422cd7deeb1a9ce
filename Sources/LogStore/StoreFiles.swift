/// The files of a store's directory, by what they are (FORMAT.md, "Directory layout"): the one
/// listing that opening, checking, compacting and the `logbook` tool all use.
package struct StoreFiles: Sendable, Equatable {
    /// A segment file.
    package struct Segment: Sendable, Equatable {
        /// Its name, `XXXXXXXXXXXXXXXX.seg`.
        package var name: String
        /// Its place in replay order (the hex digits of its name).
        package var order: UInt64
        /// Its size in bytes, when the listing was asked for sizes (else 0).
        package var bytes: Int64
    }

    /// The store's directory.
    package var path: String
    /// Segment files in replay order.
    package var segments: [Segment] = []
    /// Hint files (`XXXXXXXXXXXXXXXX.hint`), sorted; a hint belongs to the segment of the same
    /// order, which may be missing.
    package var hints: [String] = []
    /// Whether the `LOCK` file is there.
    package var hasLock = false
    /// Whether the key directory file (`keys.dir`) is there: the index as a clean close left it.
    package var hasKeyDirectory = false
    /// Files an interrupted compaction or hint write left (`*.tmp`): never read, removed by the
    /// next open for writing.
    package var temporaryFiles: [String] = []
    /// Bytes that recovery cut from a torn tail, kept aside (`*.cut`) until a compaction or
    /// `logbook verify --discard-cut` removes them. Never read by the store.
    package var cutFiles: [String] = []
    /// Segments that salvage mode moved aside because they could not be read (`*.seg.damaged`).
    package var damagedFiles: [String] = []
    /// Every other name (the store ignores them).
    package var otherFiles: [String] = []

    /// Lists the store directory at `path`.
    /// - Parameters:
    ///   - path: the store's directory.
    ///   - sizes: whether to read each segment's size (one `open` and `fstat` each).
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` if the directory cannot be listed
    ///   (`ENOENT` if it is missing, `ENOTDIR` if it is a file).
    package init(storeAt path: String, sizes: Bool = false) throws {
        try self.init(storeAt: path, sizes: sizes, fileSystem: PosixFileSystem())
    }

    /// Lists the store directory at `path` through `fileSystem`.
    package init(storeAt path: String, sizes: Bool = false, fileSystem: any FileSystem) throws {
        self.path = path
        for name in try fileSystem.contents(ofDirectory: path) {
            if let order = Self.segmentOrder(name) {
                segments.append(Segment(name: name, order: order, bytes: 0))
            } else if name == Self.lockName {
                hasLock = true
            } else if name == KeyDirectoryFile.name {
                hasKeyDirectory = true
            } else if name.hasSuffix(".tmp") {
                temporaryFiles.append(name)
            } else if Self.segmentOrder(hintName: name) != nil {
                hints.append(name)
            } else if name.hasSuffix(".cut") {
                cutFiles.append(name)
            } else if name.hasSuffix(".seg.damaged") {
                damagedFiles.append(name)
            } else {
                otherFiles.append(name)
            }
        }
        segments.sort { $0.order < $1.order }
        if sizes {
            for i in segments.indices {
                let file = try fileSystem.open(
                    path + "/" + segments[i].name, create: false, readOnly: true)
                defer { try? fileSystem.close(file) }
                segments[i].bytes = try fileSystem.size(file)
            }
        }
    }

    /// Whether the directory holds a store: a `LOCK` file or a segment.
    package var isStore: Bool { hasLock || !segments.isEmpty }

    /// The full path of the file called `name`.
    package func path(of name: String) -> String { path + "/" + name }

    /// Whether the segment of `order` has a hint file.
    package func hasHint(forSegmentOf order: UInt64) -> Bool {
        hints.contains(Self.hintName(order: order))
    }

    /// Hint files whose segment is not in the directory.
    package var orphanHints: [String] {
        let orders = Set(segments.map(\.order))
        return hints.filter { !orders.contains(Self.segmentOrder(hintName: $0)!) }
    }

    static let lockName = "LOCK"

    static func segmentName(order: UInt64) -> String { hex16(order) + ".seg" }

    static func hintName(order: UInt64) -> String { hex16(order) + ".hint" }

    /// The order in a segment file name, or `nil` if `name` is not one.
    static func segmentOrder(_ name: String) -> UInt64? { order(name, suffix: ".seg") }

    /// The order in a hint file name, or `nil` if `name` is not one.
    static func segmentOrder(hintName name: String) -> UInt64? { order(name, suffix: ".hint") }

    /// The 16 lower-case hex digits before `suffix`, as a number.
    private static func order(_ name: String, suffix: String) -> UInt64? {
        guard name.hasSuffix(suffix), name.utf8.count == 16 + suffix.utf8.count else { return nil }
        let digits = name.utf8.prefix(16)
        guard
            digits.allSatisfy({
                ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
            })
        else { return nil }
        return UInt64(String(decoding: digits, as: UTF8.self), radix: 16)
    }
}

/// `value` as 16 lower-case hex digits.
func hex16(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
}
