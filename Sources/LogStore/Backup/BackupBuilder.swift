import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Builds the files of a new backup in `DST.incoming` (FORMAT.md, "Backups"): incrementally, as
/// the previous backup's files (linked, never copied) plus one segment of the commits written
/// since; or whole, as copies of the source's sealed segments (linking those the previous
/// backup already holds) and of the commits at the start of its newest segment. It syncs
/// nothing: the files it wrote (``writtenPaths``) are synced by ``BackupTarget/install(syncing:)``
/// together with the directory, all at once, before the swap; nothing reaches them before it,
/// so the order in which they become durable does not matter. Linked files need no sync: their
/// data was synced by the backup that wrote them, and the new name is made durable by that sync
/// of the directory.
///
/// Not thread-safe; the snapshot's segments stay mapped while it runs.
struct BackupBuilder {
    let snapshot: BackupSnapshot
    let target: BackupTarget
    let identity: [UInt8]
    var fs: any FileSystem { target.fs }
    private(set) var files: [BackupManifest.File] = []
    private(set) var bytesCopied: Int64 = 0
    private(set) var bytesLinked: Int64 = 0
    /// The files written (not linked), to sync before the swap.
    private let written = WrittenFiles()
    /// The paths of the files written (not linked): what must be synced before the swap.
    var writtenPaths: [String] { written.paths }

    /// Paths, appended to by the non-mutating writes.
    private final class WrittenFiles {
        var paths: [String] = []
    }

    /// Incremental backups in a row before a whole one: the backup's segments stay few.
    static let maximumCommitFiles = 32
    /// Orders of the segments of commits a backup writes: past any order a store reaches by
    /// itself (2^46 segments), so they never share a name with a segment of the source.
    static let commitFileOrderBase: UInt64 = (1 << 46) << 16

    init(snapshot: BackupSnapshot, target: BackupTarget, identity: [UInt8]) {
        self.snapshot = snapshot
        self.target = target
        self.identity = identity
    }

    /// Writes the backup's files, unsynced (``writtenPaths``); returns its manifest and whether
    /// it was incremental.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` (`ENOSPC` among others).
    mutating func build() throws -> (BackupManifest, incremental: Bool) {
        let previous = target.previous.flatMap { $0.identity == identity ? $0 : nil }
        var incremental = false
        if let previous, let commits = try commitsSince(previous) {
            try linkAll(of: previous)
            if !commits.isEmpty {
                try writeCommits(commits, order: nextCommitFileOrder(after: previous))
            }
            incremental = true
        } else {
            try copyWhole(reusing: previous)
        }
        let manifest = BackupManifest(
            lastSequence: snapshot.lastSequence, created: Date().timeIntervalSinceReferenceDate,
            identity: identity, resume: snapshot.resume, files: files)
        let bytes = manifest.encoded()
        _ = try bytes.withUnsafeBytes { raw in
            try write(name: BackupManifest.name) { file, offset in
                try fs.writeAll(file, raw, at: offset)
                offset += Int64(raw.count)
            }
        }
        return (manifest, incremental)
    }

    // MARK: Incremental

    /// The byte ranges of the commits after `previous.lastSequence`, in order, when the source
    /// still holds them all where `previous` says its log went on; `nil` when it does not (a
    /// compaction removed them, the source is not the log the backup copied, the backup has
    /// too many files) and the backup must be made whole.
    private func commitsSince(_ previous: BackupManifest) throws -> [(Int, Range<Int>)]? {
        guard let resume = previous.resume, previous.lastSequence <= snapshot.lastSequence,
            previous.files.count(where: { $0.kind == .commits }) < Self.maximumCommitFiles,
            Int64(previous.files.reduce(0) { $0 + $1.size }) <= 2 * snapshot.bytes + 64 << 20,
            let first = snapshot.parts.firstIndex(where: { $0.segment.order == resume.order }),
            !snapshot.parts[first].segment.isCompactionOutput,
            resume.offset <= UInt64(snapshot.parts[first].size),
            BackupManifest.tailCRC(snapshot.parts[first].bytes, offset: Int(resume.offset))
                == resume.tailCRC,
            try previousFilesAreWhole(previous)
        else { return nil }
        var ranges: [(Int, Range<Int>)] = []
        var last = previous.lastSequence
        for i in first..<snapshot.parts.count where !snapshot.parts[i].segment.isCompactionOutput {
            var scanner = SegmentScanner(
                bytes: snapshot.parts[i].bytes, keyspaces: snapshot.keyspaces)
            scanner.position = i == first ? Int(resume.offset) : FileHeader.size
            while let event = scanner.next() {
                guard case .commit(let sequence, let start, let end) = event,
                    sequence == last + 1
                else { return nil }  // damage, or a gap: copy whole, which says what it finds
                last = sequence
                if let previousRange = ranges.last, previousRange.0 == i,
                    previousRange.1.upperBound == start
                {
                    ranges[ranges.count - 1].1 = previousRange.1.lowerBound..<end
                } else {
                    ranges.append((i, start..<end))
                }
            }
        }
        return last == snapshot.lastSequence ? ranges : nil
    }

    /// Whether every file the manifest lists is in `DST` with its size.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` but for a missing file.
    private func previousFilesAreWhole(_ previous: BackupManifest) throws -> Bool {
        for file in previous.files {
            guard let found = try openIfPresent(target.path + "/" + file.name) else { return false }
            defer { try? fs.close(found) }
            guard try fs.size(found) == Int64(file.size) else { return false }
        }
        return true
    }

    /// Opens the file at `path` for reading; `nil` if it is missing.
    private func openIfPresent(_ path: String) throws -> OpenFile? {
        do {
            return try fs.open(path, create: false, readOnly: true)
        } catch LogStoreError.io(_, _, ENOENT) {
            return nil
        }
    }

    /// Links every file of the previous backup into the new one.
    private mutating func linkAll(of previous: BackupManifest) throws {
        for file in previous.files { try link(file) }
    }

    /// The order of the next segment of commits: after every segment of the previous backup.
    private func nextCommitFileOrder(after previous: BackupManifest) -> UInt64 {
        let highest = previous.files.compactMap { StoreFiles.segmentOrder($0.name) }.max() ?? 0
        return max(Self.commitFileOrderBase, (highest >> 16 + 1) << 16)
    }

    /// Writes a segment of the commits in `ranges`, then a mark that vouches for all of it.
    private mutating func writeCommits(_ ranges: [(Int, Range<Int>)], order: UInt64) throws {
        let name = StoreFiles.segmentName(order: order)
        var crc: UInt32 = 0
        let size = try write(name: name) { file, offset in
            let header = FileHeader(kind: .segment, fileOrder: order).encoded()
            try header.withUnsafeBytes { try append($0, to: file, at: &offset, crc: &crc) }
            for (part, range) in ranges {
                try append(
                    UnsafeRawBufferPointer(rebasing: snapshot.parts[part].bytes[range]), to: file,
                    at: &offset, crc: &crc,
                    releasing: (snapshot.parts[part].segment, range.lowerBound))
            }
            var mark: [UInt8] = []
            SyncMark.append(durableSize: Int(offset), to: &mark)
            try mark.withUnsafeBytes { try append($0, to: file, at: &offset, crc: &crc) }
        }
        files.append(.init(name: name, kind: .commits, size: UInt64(size), crc: crc))
        bytesCopied += size
    }

    // MARK: Whole

    /// Copies every segment of the snapshot, linking the sealed ones the previous backup holds
    /// byte for byte; the newest is copied to its last commit and ended with a mark.
    private mutating func copyWhole(reusing previous: BackupManifest?) throws {
        let reusable = Dictionary(
            (previous?.files ?? []).filter { $0.kind == .segment || $0.kind == .hint }.map {
                ($0.name, $0)
            }, uniquingKeysWith: { first, _ in first })
        for (i, part) in snapshot.parts.enumerated() {
            let name = StoreFiles.segmentName(order: part.segment.order)
            let newest = i == snapshot.parts.count - 1 && !part.segment.isCompactionOutput
            guard !newest else {
                try copyPrefix(part, name: name)
                continue
            }
            if let known = reusable[name], known.size == UInt64(part.size),
                try sameEnds(of: part, as: target.path + "/" + name)
            {
                try link(known)
                let hint = StoreFiles.hintName(order: part.segment.order)
                if let knownHint = reusable[hint] { try? link(knownHint) }
                continue
            }
            try copySegment(part, name: name)
        }
        if snapshot.parts.last.map({ $0.segment.isCompactionOutput }) ?? false {
            // No writer leaves an output newest; should one be, a backup still ends with an
            // ordinary segment, which its restored writer appends to.
            let highest = snapshot.parts.last!.segment.order
            try writeCommits([], order: (highest >> 16 + 1) << 16)
        }
    }

    /// Copies a sealed segment whole, and its hint when it describes it.
    private mutating func copySegment(_ part: BackupSnapshot.Part, name: String) throws {
        var crc: UInt32 = 0
        let size = try write(name: name) { file, offset in
            try append(part.bytes, to: file, at: &offset, crc: &crc, releasing: (part.segment, 0))
        }
        files.append(.init(name: name, kind: .segment, size: UInt64(size), crc: crc))
        bytesCopied += size
        let hintPath = Hint.path(forSegment: part.segment.path)
        guard let hint = Self.hint(at: hintPath, describing: part.size, fileSystem: fs) else {
            return
        }
        var hintCRC: UInt32 = 0
        let hintName = StoreFiles.hintName(order: part.segment.order)
        let hintSize = try write(name: hintName) { file, offset in
            try hint.withUnsafeBytes { try append($0, to: file, at: &offset, crc: &hintCRC) }
        }
        files.append(.init(name: hintName, kind: .hint, size: UInt64(hintSize), crc: hintCRC))
        bytesCopied += hintSize
    }

    /// Copies the commits of the source's newest segment, then a mark (version 2 on) that
    /// vouches for them: damage in them is then corruption, never taken for a torn tail.
    private mutating func copyPrefix(_ part: BackupSnapshot.Part, name: String) throws {
        var crc: UInt32 = 0
        let size = try write(name: name) { file, offset in
            try append(part.bytes, to: file, at: &offset, crc: &crc, releasing: (part.segment, 0))
            if part.segment.formatVersion >= 2 {
                var mark: [UInt8] = []
                SyncMark.append(durableSize: Int(offset), to: &mark)
                try mark.withUnsafeBytes { try append($0, to: file, at: &offset, crc: &crc) }
            }
        }
        files.append(.init(name: name, kind: .prefix, size: UInt64(size), crc: crc))
        bytesCopied += size
    }

    /// The bytes of the hint at `path` when its trailer describes a segment of `size` bytes and
    /// its checksum matches (open checks the rest); else `nil`.
    private static func hint(at path: String, describing size: Int, fileSystem fs: any FileSystem)
        -> [UInt8]?
    {
        guard let file = try? fs.open(path, create: false, readOnly: true) else { return nil }
        defer { try? fs.close(file) }
        guard let length = try? fs.size(file), length >= Int64(FileHeader.size + Hint.trailerSize),
            length <= Int64(size) * 4 + Int64(FileHeader.size + Hint.trailerSize)
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        guard
            (try? bytes.withUnsafeMutableBytes({ try fs.read(file, into: $0, at: 0) }))
                == bytes.count
        else { return nil }
        return bytes.withUnsafeBytes { raw -> Bool in
            let trailer = raw.count - Hint.trailerSize
            let crc = Checksum.crc32c(
                UnsafeRawBufferPointer(rebasing: raw[FileHeader.size..<(raw.count - 4)]))
            return raw.loadLE(at: trailer, as: UInt64.self) == UInt64(size)
                && raw.loadLE(at: raw.count - 4, as: UInt32.self) == crc
        } ? bytes : nil
    }

    /// Whether the file at `path` starts and ends with the same bytes as `part` (up to 4 KiB of
    /// each): a segment the previous backup copied whole, and that the source still holds.
    private func sameEnds(of part: BackupSnapshot.Part, as path: String) throws -> Bool {
        guard let file = try openIfPresent(path) else { return false }
        defer { try? fs.close(file) }
        let window = min(BackupManifest.tailWindow, part.size)
        var buffer = [UInt8](repeating: 0, count: window)
        for start in [0, part.size - window] {
            let read = try buffer.withUnsafeMutableBytes {
                try fs.read(file, into: $0, at: Int64(start))
            }
            guard read == window, buffer.elementsEqual(part.bytes[start..<(start + window)]) else {
                return false
            }
        }
        return true
    }

    // MARK: Files

    /// Links the previous backup's `file` into the new one.
    private mutating func link(_ file: BackupManifest.File) throws {
        let from = target.path + "/" + file.name
        let to = target.staging + "/" + file.name
        do {
            try fs.link(from, to: to)
            bytesLinked += Int64(file.size)
        } catch LogStoreError.io(_, _, let code)
            where code == ENOTSUP || code == EPERM || code == EXDEV || code == EMLINK
        {
            // No hard link here: copy the file.
            try copyFile(from, to: to, size: file.size)
            bytesCopied += Int64(file.size)
        }
        files.append(file)
    }

    /// Copies the file at `from` (of `size` bytes) to `to`.
    private func copyFile(_ from: String, to: String, size: UInt64) throws {
        let source = try fs.open(from, create: false, readOnly: true)
        defer { try? fs.close(source) }
        var buffer = [UInt8](repeating: 0, count: Self.chunk)
        var crc: UInt32 = 0
        _ = try write(path: to) { file, offset in
            while UInt64(offset) < size {
                let read = try buffer.withUnsafeMutableBytes {
                    try fs.read(source, into: $0, at: offset)
                }
                guard read > 0 else {
                    throw LogStoreError.io(operation: "read", path: from, errno: EIO)
                }
                try buffer.withUnsafeBytes {
                    try append(
                        UnsafeRawBufferPointer(rebasing: $0[..<read]), to: file, at: &offset,
                        crc: &crc)
                }
            }
        }
    }

    /// Bytes written at a time.
    static let chunk = 1 << 20

    /// Appends `bytes` to `file` at `offset`, a chunk at a time, extending `crc`. With
    /// `source` (the segment `bytes` lie in, and the offset in it of their first byte), the
    /// segment's pages leave this process's memory behind the copy.
    private func append(
        _ bytes: UnsafeRawBufferPointer, to file: OpenFile, at offset: inout Int64,
        crc: inout UInt32, releasing source: (segment: Segment, start: Int)? = nil
    ) throws {
        var done = 0
        while done < bytes.count {
            let end = min(bytes.count, done + Self.chunk)
            let piece = UnsafeRawBufferPointer(rebasing: bytes[done..<end])
            try fs.writeAll(file, piece, at: offset)
            crc = Checksum.crc32c(piece, extending: crc)
            if let source {
                source.segment.releasePages(from: source.start + done, to: source.start + end)
            }
            offset += Int64(piece.count)
            done = end
        }
    }

    /// Creates `name` in `DST.incoming`, lets `body` write it, and closes it (it is synced
    /// before the swap); returns its size. A file that fails is removed.
    @discardableResult
    private func write(
        name: String, _ body: (OpenFile, inout Int64) throws -> Void
    ) throws -> Int64 {
        try write(path: target.staging + "/" + name, body)
    }

    private func write(
        path: String, _ body: (OpenFile, inout Int64) throws -> Void
    ) throws -> Int64 {
        let file = try fs.open(path, create: true, readOnly: false)
        var offset: Int64 = 0
        do {
            try fs.truncate(file, to: 0)
            try body(file, &offset)
            try fs.close(file)
        } catch {
            try? fs.close(file)
            try? fs.remove(path)
            throw error
        }
        written.paths.append(path)
        return offset
    }
}
