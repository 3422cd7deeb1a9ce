/// A sidecar file: bytes a layer above keeps beside the segments (the object layer's indexes),
/// describing the store as of one commit (FORMAT.md Part 2, "Index sidecar").
///
/// The store never needs a sidecar: it is derived data, for speed. Whoever reads one compares
/// its ``sequence`` with ``LogStore/lastSequence`` to know whether it still describes the store.
public struct Sidecar: Sendable, Equatable {
    /// The sequence number of the last commit the contents describe.
    public let sequence: UInt64
    /// The bytes as written.
    public let contents: [UInt8]
}

extension LogStore {
    /// File name suffix of sidecar files.
    package static let sidecarSuffix = ".sidecar"
    /// The sidecar file's own format version.
    static let sidecarVersion: UInt16 = 1
    static let sidecarMagic = Array("LBKSDC\r\n".utf8)
    /// Header (24 bytes) and trailer (length u64 before the contents, CRC u32 after).
    static let sidecarOverhead = 24 + 8 + 4

    /// Writes `contents` as the sidecar `name`, describing the store as of commit `sequence`,
    /// replacing any earlier one. Every commit up to `sequence` is made durable first, so the
    /// sidecar never describes commits a crash could lose. Crash-safe: the file is written under
    /// a temporary name, synced, renamed into place and the directory synced; after a crash
    /// either the old sidecar or the new one is there.
    /// - Parameters:
    ///   - name: 1 to 64 letters, digits, `-`, `_` or `.`.
    ///   - contents: the bytes to keep.
    ///   - sequence: the commit the contents describe, at most the store's last.
    /// - Throws: ``LogStoreError/invalidArgument(_:)`` for a bad name or a `sequence` beyond
    ///   ``lastSequence``; ``LogStoreError/readOnly(path:)``; ``LogStoreError/closed``;
    ///   ``LogStoreError/io(operation:path:errno:)``.
    /// - Complexity: O(contents), plus one sync of the log and two of the file system.
    public func writeSidecar(named name: String, contents: [UInt8], sequence: UInt64) throws {
        // Header and trailer around the contents, written as three pieces: the contents (an
        // index sidecar can be tens of megabytes) are not copied.
        var header = try beginSidecarWrite(named: name, sequence: sequence)
        header.appendLE(UInt64(contents.count))
        var trailer: [UInt8] = []
        trailer.appendLE(
            contents.withUnsafeBytes { contents in
                Checksum.crc32c(
                    contents,
                    extending: header.withUnsafeBytes {
                        Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[24...]))
                    })
            })
        let fs = options.fileSystem
        try header.withUnsafeBytes { header in
            try contents.withUnsafeBytes { contents in
                try trailer.withUnsafeBytes { trailer in
                    try fs.writeAtomically(
                        [header, contents, trailer], to: sidecarPath(name), directory: path)
                }
            }
        }
    }

    /// The sidecar `name`, or `nil` if there is none.
    /// - Throws: ``LogStoreError/corruption(path:offset:reason:)`` for a file that does not
    ///   check (short, bad magic, lengths, CRCs); ``LogStoreError/unsupportedVersion(path:found:supported:)``
    ///   for a newer format; ``LogStoreError/invalidArgument(_:)`` for a bad name;
    ///   ``LogStoreError/io(operation:path:errno:)``.
    /// - Complexity: O(size of the file).
    public func readSidecar(named name: String) throws -> Sidecar? {
        try withSidecar(named: name) { sequence, contents in
            Sidecar(sequence: sequence, contents: Array(contents))
        }
    }

    /// Calls `body` with the sequence and the contents of the sidecar `name`, checked as
    /// ``readSidecar(named:)`` checks them, without copying them out of the file's bytes (read
    /// into a buffer that is not zeroed first); `nil` (and no call) if there is none.
    /// - Throws: as ``readSidecar(named:)``, and what `body` throws.
    /// - Complexity: O(size of the file).
    package func withSidecar<R>(
        named name: String, _ body: (UInt64, UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        guard let mapped = try mapSidecar(named: name) else { return nil }
        let raw = mapped.file
        guard
            raw.loadLE(at: raw.count - 4, as: UInt32.self)
                == Checksum.crc32c(UnsafeRawBufferPointer(rebasing: raw[24..<(raw.count - 4)]))
        else {
            throw LogStoreError.corruption(
                path: sidecarPath(name), offset: Int64(raw.count - 4),
                reason: "contents checksum mismatch")
        }
        return try body(mapped.sequence, mapped.contents)
    }

    /// The sidecar `name` mapped copy-on-write (pages are read from the file when first
    /// touched), or `nil` if there is none. Its header, version and length are checked as
    /// ``readSidecar(named:)`` checks them, but **not** its contents CRC, which would read every
    /// page: the caller checks what it uses (the object layer's snapshot carries its own CRCs).
    /// - Throws: as ``readSidecar(named:)``.
    /// - Complexity: O(1) besides the mapping.
    package func mapSidecar(named name: String) throws -> MappedSidecar? {
        try Self.checkSidecarName(name)
        let fs = options.fileSystem
        let file = sidecarPath(name)
        guard fs.kind(of: file) == .file else { return nil }
        let handle = try fs.open(file, create: false, readOnly: true)
        defer { try? fs.close(handle) }
        let size = try fs.size(handle)
        func damaged(_ offset: Int64, _ reason: String) -> LogStoreError {
            .corruption(path: file, offset: offset, reason: reason)
        }
        guard size >= Int64(Self.sidecarOverhead) else {
            throw damaged(
                0, "a sidecar file is at least \(Self.sidecarOverhead) bytes, not \(size)")
        }
        guard size <= Int64(Int32.max) * 16 else {
            throw damaged(0, "a sidecar file of \(size) bytes is over the limit")
        }
        let memory = try fs.mapCopyOnWrite(handle, offset: 0, length: Int(size))
        let mapped = MappedSidecar(memory: memory, length: Int(size), fileSystem: fs)
        let raw = mapped.file
        guard raw.prefix(8).elementsEqual(Self.sidecarMagic) else {
            throw damaged(0, "not a Logbook sidecar file (bad magic)")
        }
        let version = raw.loadLE(at: 8, as: UInt16.self)
        if version > Self.sidecarVersion {
            throw LogStoreError.unsupportedVersion(
                path: file, found: version, supported: Self.sidecarVersion)
        }
        guard
            raw.loadLE(at: 20, as: UInt32.self)
                == Checksum.crc32c(UnsafeRawBufferPointer(rebasing: raw[0..<20]))
        else { throw damaged(20, "file header checksum mismatch") }
        guard version >= 1, raw.loadLE(at: 10, as: UInt16.self) == 0 else {
            throw damaged(8, "unknown format version \(version) or flags")
        }
        let length = raw.loadLE(at: 24, as: UInt64.self)
        guard length == UInt64(raw.count - Self.sidecarOverhead) else {
            throw damaged(24, "the length \(length) does not match the file's size")
        }
        mapped.sequence = raw.loadLE(at: 12, as: UInt64.self)
        return mapped
    }

    /// Removes the sidecar `name` if there is one.
    /// - Throws: ``LogStoreError/invalidArgument(_:)``, ``LogStoreError/readOnly(path:)``,
    ///   ``LogStoreError/io(operation:path:errno:)``.
    public func removeSidecar(named name: String) throws {
        try Self.checkSidecarName(name)
        guard writer != nil else { throw LogStoreError.readOnly(path: path) }
        let fs = options.fileSystem
        let file = sidecarPath(name)
        guard fs.kind(of: file) != .missing else { return }
        try fs.remove(file)
        try fs.syncDirectory(path)
    }

    func sidecarPath(_ name: String) -> String { path + "/" + name + Self.sidecarSuffix }

    static func checkSidecarName(_ name: String) throws {
        let allowed = name.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E
        }
        guard allowed, (1...64).contains(name.utf8.count) else {
            throw LogStoreError.invalidArgument(
                "a sidecar name is 1 to 64 letters, digits, \"-\", \"_\" or \".\", not \"\(name.prefix(70))\""
            )
        }
    }
}

/// A sidecar file mapped copy-on-write (``LogStore/mapSidecar(named:)``): its pages come from
/// the file when first touched, and the mapping lasts as long as this object, whatever happens
/// to the store or the file (a new sidecar replaces the file by a rename). Never written.
///
/// Thread safety: `Sendable`; the bytes never change.
package final class MappedSidecar: @unchecked Sendable {  // immutable after mapSidecar returns
    /// The sequence number of the last commit the contents describe.
    package fileprivate(set) var sequence: UInt64 = 0
    private let memory: UnsafeMutableRawPointer
    private let length: Int
    private let fileSystem: any FileSystem

    fileprivate init(memory: UnsafeMutableRawPointer, length: Int, fileSystem: any FileSystem) {
        self.memory = memory
        self.length = length
        self.fileSystem = fileSystem
    }

    deinit { fileSystem.unmapCopyOnWrite(memory, length: length) }

    /// The whole file.
    fileprivate var file: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: memory, count: length)
    }

    /// The contents, as written (page-aligned at file offset 32; their CRC is not checked).
    package var contents: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: file[32..<(length - 4)])
    }

    /// The CRC32C of `bytes` (FORMAT.md, "Checksums"), for checking the parts of the contents
    /// a reader uses.
    package static func crc32c(_ bytes: UnsafeRawBufferPointer, extending crc: UInt32 = 0)
        -> UInt32
    {
        Checksum.crc32c(bytes, extending: crc)
    }

    /// Drops the pages read so far from this process's memory; they come back from the file
    /// when next touched. Advice only.
    package func releasePages() {
        fileSystem.releaseUnwrittenCopyOnWritePages(memory, length: length)
    }
}

extension LogStore {
    /// What every sidecar write does first: checks the name, that the store is writable and
    /// open, and that `sequence` is at most the last commit; syncs the log (a sidecar never
    /// describes commits a crash could lose); and returns the header's first 24 bytes (magic,
    /// version, flags, sequence and their CRC), to which the writer appends the length.
    /// - Throws: as ``writeSidecar(named:contents:sequence:)``.
    func beginSidecarWrite(named name: String, sequence: UInt64) throws -> [UInt8] {
        try Self.checkSidecarName(name)
        guard writer != nil else { throw LogStoreError.readOnly(path: path) }
        guard sequence <= lastSequence else {
            throw LogStoreError.invalidArgument(
                "a sidecar cannot describe commit \(sequence): the last commit is \(lastSequence)")
        }
        try index.withLock { state throws(LogStoreError) in
            if state.closed { throw .closed }
        }
        try sync()
        var header = Self.sidecarMagic
        header.appendLE(Self.sidecarVersion)
        header.appendLE(UInt16(0))
        header.appendLE(sequence)
        header.appendLE(header.withUnsafeBytes { Checksum.crc32c($0) })
        return header
    }
}
