import Foundation

/// What a disk holds after a power loss, replayed from a ``RecordingFileSystem`` trace.
///
/// The model is the pessimistic POSIX one: a file's bytes are durable only up to its last
/// `fdatasync`; a directory entry made, renamed or removed is durable only after an `fsync` of
/// its directory. What is not durable may be lost, kept, or (for data) kept in part, 512 bytes at
/// a time, with grown regions reading as zeros or garbage. ``CrashVariant`` picks one outcome.
///
/// Directory changes that are not durable survive, when they do, as a prefix in the order they
/// were made (what a journaling file system gives) — or, with `unorderedEntries`, any subset.
package struct SimulatedDisk {
    /// What a path names.
    package enum Entry: Hashable, Sendable {
        case file(Int)
        case directory
    }

    private enum Change {
        case add(String, Entry)
        case rename(String, String)
        case remove(String)
    }

    private struct FileData {
        var durable: [UInt8] = []
        var current: [UInt8] = []
    }

    private var files: [Int: FileData] = [:]
    private var entries: [String: Entry] = [:]
    private var durableEntries: [String: Entry] = [:]
    /// Per directory, the entry changes not yet made durable, in order.
    private var pending: [String: [Change]] = [:]
    /// The root of the recorded tree (always exists).
    package let root: String

    /// The disk as it was when `recorder` started.
    package init(_ recorder: RecordingFileSystem) {
        root = recorder.root
        for directory in recorder.initialDirectories { entries[directory] = .directory }
        for (i, file) in recorder.initialFiles.enumerated() {
            entries[file.path] = .file(i)
            files[i] = FileData(durable: file.bytes, current: file.bytes)
        }
        durableEntries = entries
    }

    /// Applies one recorded event.
    package mutating func apply(_ event: TraceEvent) {
        switch event {
        case .makeDirectory(let path):
            entries[path] = .directory
            pending[parent(path), default: []].append(.add(path, .directory))
        case .create(let path, let id):
            files[id] = FileData()
            entries[path] = .file(id)
            pending[parent(path), default: []].append(.add(path, .file(id)))
        case .write(let id, let offset, let bytes):
            var current = files[id]!.current
            if current.count < offset + bytes.count {
                current += Self.zeros(offset + bytes.count - current.count)
            }
            current.replaceSubrange(offset..<offset + bytes.count, with: bytes)
            files[id]!.current = current
        case .truncate(let id, let length):
            var current = files[id]!.current
            if length < current.count {
                current.removeSubrange(length...)
            } else {
                current += Self.zeros(length - current.count)
            }
            files[id]!.current = current
        case .syncData(let id):
            files[id]!.durable = files[id]!.current
        case .rename(let from, let to):
            entries[to] = entries.removeValue(forKey: from)
            pending[parent(to), default: []].append(.rename(from, to))
        case .remove(let path):
            entries[path] = nil
            pending[parent(path), default: []].append(.remove(path))
        case .syncDirectory(let path):
            for change in pending.removeValue(forKey: path) ?? [] {
                Self.apply(change, to: &durableEntries)
            }
        case .attempt, .acknowledged:
            break
        }
    }

    private static func apply(_ change: Change, to entries: inout [String: Entry]) {
        switch change {
        case .add(let path, let entry):
            entries[path] = entry
        case .rename(let from, let to):
            if let entry = entries.removeValue(forKey: from) { entries[to] = entry }
        case .remove(let path):
            entries[path] = nil
        }
    }

    /// `count` zero bytes. An array, not `repeatElement`: appending a `Repeated` copies a byte at
    /// a time through generic calls in a debug build (a tenth of PowerLossTests' CPU).
    private static func zeros(_ count: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: count)
    }

    private func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    // MARK: - Promises kept

    /// Files under `directory` whose written bytes are not all durable.
    package func unsyncedFiles(in directory: String) -> [String] {
        entries.compactMap { path, entry in
            guard case .file(let id) = entry, parent(path) == directory,
                files[id]!.durable != files[id]!.current
            else { return nil }
            return path
        }.sorted()
    }

    /// Entries of `directory` created or renamed into place whose change is not yet durable.
    package func unsyncedEntries(in directory: String) -> [String] {
        (pending[directory] ?? []).compactMap { change in
            switch change {
            case .add(let path, _): return "created \(path)"
            case .rename(let from, let to): return "renamed \(from) to \(to)"
            case .remove: return nil
            }
        }
    }

    /// Whether `path` names file `id` durably, with at least `bytes` durable bytes.
    package func isDurable(_ path: String, atLeast bytes: Int) -> Bool {
        guard case .file(let id) = durableEntries[path] else { return false }
        return files[id]!.durable.count >= bytes
    }

    /// The current path of file `id`.
    package func path(of id: Int) -> String? {
        entries.first { $0.value == .file(id) }?.key
    }

    // MARK: - Crash images

    /// The tree a power loss now could leave under ``root``, as `variant` decides.
    package func image(_ variant: CrashVariant) -> CrashImage {
        var rng = SeededGenerator(seed: variant.seed)
        var survivors = durableEntries
        for directory in pending.keys.sorted() {
            let changes = pending[directory]!
            let kept: [Change]
            switch variant.entries {
            case .lost: kept = []
            case .kept: kept = changes
            case .prefix:
                kept = Array(changes.prefix(Int.random(in: 0...changes.count, using: &rng)))
            case .subset: kept = changes.filter { _ in Bool.random(using: &rng) }
            }
            for change in kept { Self.apply(change, to: &survivors) }
        }
        var image = CrashImage()
        var directories: Set<String> = [""]
        // Parents sort before their children.
        for path in survivors.keys.sorted() where path.hasPrefix(root + "/") {
            let relative = String(path.dropFirst(root.utf8.count))
            guard directories.contains(parent(relative)) else { continue }  // its directory is gone
            switch survivors[path]! {
            case .directory:
                directories.insert(relative)
                image.items.append((relative, nil))
            case .file(let id):
                image.items.append((relative, surviving(files[id]!, variant.data, &rng)))
            }
        }
        return image
    }

    /// The bytes of one file after the power loss.
    private func surviving(
        _ file: FileData, _ mode: CrashVariant.DataFate, _ rng: inout SeededGenerator
    )
        -> [UInt8]
    {
        if file.durable == file.current { return file.durable }
        var choice = mode
        if case .mixed = mode {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: choice = .lost
            case 1: choice = .kept
            default:
                choice = .sectors(
                    keep: Double.random(in: 0...1, using: &rng), garbage: Bool.random(using: &rng))
            }
        }
        switch choice {
        case .lost, .mixed:
            return file.durable
        case .kept:
            return file.current
        case .sectors(let keep, let garbage):
            let low = min(file.durable.count, file.current.count)
            let high = max(file.durable.count, file.current.count)
            let length: Int
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: length = file.durable.count
            case 1: length = file.current.count
            default: length = Int.random(in: low...high, using: &rng)
            }
            var out: [UInt8] = []
            out.reserveCapacity(length)
            var sector = 0
            while sector < length {
                let end = min(sector + 512, length)
                let new = Double.random(in: 0..<1, using: &rng) < keep
                var position = sector
                if new {
                    let a = min(end, file.current.count)
                    if position < a {
                        out.append(contentsOf: file.current[position..<a])
                        position = a
                    }
                }
                // Not written (or shrunk but the shrink not durable): what was durable.
                let b = min(end, file.durable.count)
                if position < b {
                    out.append(contentsOf: file.durable[position..<b])
                    position = b
                }
                // Grown but never reached the disk.
                if position < end {
                    if garbage {
                        let start = Int.random(in: 0..<Self.garbage.count - 512, using: &rng)
                        out.append(contentsOf: Self.garbage[start..<start + end - position])
                    } else {
                        out += Self.zeros(end - position)
                    }
                }
                sector = end
            }
            return out
        }
    }

    /// Random bytes to fill regions a file grew by but whose data never reached the disk.
    private static let garbage: [UInt8] = {
        var rng = SeededGenerator(seed: 0x6172_6261_6765)
        return (0..<8192).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }()
}

/// A directory tree left by a power loss: relative paths (each starting with "/"), parents
/// first, with a file's bytes or `nil` for a directory.
package struct CrashImage: Hashable {
    package var items: [(path: String, bytes: [UInt8]?)] = []

    /// Creates the tree under `target` (which must exist and be empty).
    package func write(to target: String) throws {
        let manager = FileManager.default
        for (path, bytes) in items {
            if let bytes {
                guard
                    manager.createFile(
                        atPath: target + path, contents: Data(bytes),
                        attributes: [.posixPermissions: 0o600])
                else { throw CocoaError(.fileWriteUnknown) }
            } else {
                try manager.createDirectory(
                    atPath: target + path, withIntermediateDirectories: false,
                    attributes: [.posixPermissions: 0o700])
            }
        }
    }

    package static func == (a: CrashImage, b: CrashImage) -> Bool {
        a.items.elementsEqual(b.items) { $0.path == $1.path && $0.bytes == $1.bytes }
    }

    package func hash(into hasher: inout Hasher) {
        for (path, bytes) in items {
            hasher.combine(path)
            hasher.combine(bytes?.count ?? -1)
            bytes?.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}

/// One way a power loss can fall out (see ``SimulatedDisk``).
package struct CrashVariant: Sendable, CustomStringConvertible {
    /// What happens to directory changes not yet made durable.
    package enum EntryFate: Sendable {
        case lost, kept, prefix, subset
    }

    /// What happens to file data not yet made durable.
    package enum DataFate: Sendable {
        case lost, kept
        /// Each 512-byte piece survives with probability `keep`; grown regions not written hold
        /// zeros, or garbage.
        case sectors(keep: Double, garbage: Bool)
        /// A random choice among the others, per file.
        case mixed
    }

    package var entries: EntryFate
    package var data: DataFate
    /// Seeds the random choices within the variant.
    package var seed: UInt64

    package init(entries: EntryFate, data: DataFate, seed: UInt64) {
        self.entries = entries
        self.data = data
        self.seed = seed
    }

    /// `count` variants: the first few fixed (everything lost; everything kept; entries lost,
    /// data kept), the rest drawn from `rng`. Entry changes survive in order unless
    /// `unorderedEntries`.
    package static func variants(
        _ count: Int, unorderedEntries: Bool = false, using rng: inout SeededGenerator
    ) -> [CrashVariant] {
        var variants = [
            CrashVariant(entries: .lost, data: .lost, seed: 0),
            CrashVariant(entries: .kept, data: .kept, seed: 0),
            CrashVariant(entries: .lost, data: .kept, seed: 0),
            CrashVariant(entries: .kept, data: .lost, seed: 0),
        ]
        while variants.count < count {
            let entries: EntryFate
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<4: entries = .lost
            case 4..<7: entries = unorderedEntries ? .subset : .prefix
            default: entries = .kept
            }
            variants.append(CrashVariant(entries: entries, data: .mixed, seed: rng.next()))
        }
        return Array(variants.prefix(count))
    }

    package var description: String { "entries \(entries), data \(data), seed \(seed)" }
}
