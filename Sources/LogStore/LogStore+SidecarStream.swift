#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sidecars written as a stream, and scratch space for the layer that produces them: what lets
/// the object layer build a large index without holding it, or its sorted runs, in memory.
extension LogStore {
    /// ``writeSidecar(named:contents:sequence:)`` of contents produced piece by piece: `produce`
    /// appends them to the output in order and returns the bytes that replace their start (a
    /// header it can only fill in at the end, at most the length of what it appended). The file
    /// holds the same bytes as for one buffer of those contents, and the same guarantees hold:
    /// the log is synced first, and after a crash either the old sidecar or the new one is there.
    /// Memory: one piece of 1 MiB, whatever the size of the contents.
    /// - Throws: as ``writeSidecar(named:contents:sequence:)``, and what `produce` throws (the
    ///   temporary file is removed, the old sidecar stays).
    /// - Complexity: O(contents), written once and read back once (for its CRC).
    package func writeSidecar(
        named name: String, sequence: UInt64, streaming produce: (SidecarOutput) throws -> [UInt8]
    ) throws {
        var header = try beginSidecarWrite(named: name, sequence: sequence)
        let fs = options.fileSystem
        let final = sidecarPath(name)
        let temporary = final + ".tmp"
        let file = try fs.open(temporary, create: true, readOnly: false)
        do {
            try fs.truncate(file, to: 0)
            let output = SidecarOutput(fileSystem: fs, file: file, at: 32)
            let start = try produce(output)
            try output.flush()
            let length = output.count
            guard start.count <= length else {
                throw LogStoreError.invalidArgument(
                    "a sidecar's start (\(start.count) bytes) is longer than its contents")
            }
            header.appendLE(UInt64(length))
            try header.withUnsafeBytes { try fs.writeAll(file, $0, at: 0) }
            try start.withUnsafeBytes { try fs.writeAll(file, $0, at: 32) }
            // The CRC covers the length and the contents as they now are in the file.
            var crc: UInt32 = 0
            var piece = [UInt8](repeating: 0, count: min(SegmentOutput.flushThreshold, 8 + length))
            var offset = 24
            while offset < 32 + length {
                let n = min(piece.count, 32 + length - offset)
                let read = try piece.withUnsafeMutableBytes {
                    try fs.read(
                        file, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<n]),
                        at: Int64(offset))
                }
                guard read == n else {
                    throw LogStoreError.io(operation: "read", path: temporary, errno: EIO)
                }
                crc = piece.withUnsafeBytes {
                    Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[0..<n]), extending: crc)
                }
                offset += n
            }
            var trailer: [UInt8] = []
            trailer.appendLE(crc)
            try trailer.withUnsafeBytes { try fs.writeAll(file, $0, at: Int64(32 + length)) }
            try fs.syncData(file)
            try fs.close(file)
        } catch {
            try? fs.close(file)
            try? fs.remove(temporary)
            throw error
        }
        try fs.rename(temporary, to: final)
        try fs.syncDirectory(path)
    }

    /// Runs `body` with a scratch file in the store's directory, unlinked as soon as it is made
    /// (a crash leaves nothing; a crash in between leaves a `.tmp` file the next open removes),
    /// and closed when `body` returns. For data a layer above spills while it builds something,
    /// never for anything durable.
    /// - Throws: ``LogStoreError/readOnly(path:)``; ``LogStoreError/io(operation:path:errno:)``;
    ///   what `body` throws.
    package func withScratchFile<R>(_ body: (ScratchFile) throws -> R) throws -> R {
        guard writer != nil else { throw LogStoreError.readOnly(path: path) }
        let fs = options.fileSystem
        let name = path + "/" + Self.scratchName
        let file = try fs.open(name, create: true, readOnly: false)
        defer { try? fs.close(file) }
        try fs.remove(name)
        try fs.truncate(file, to: 0)
        return try body(ScratchFile(fileSystem: fs, file: file))
    }

    /// The scratch file's name while it has one (a `.tmp` file: the next open removes a leftover).
    static let scratchName = "scratch.tmp"
}

/// The contents of a sidecar being streamed (``LogStore/writeSidecar(named:sequence:streaming:)``):
/// bytes appended in order, handed to the file a piece at a time.
///
/// Not thread-safe; valid only during the call that made it.
package final class SidecarOutput {
    private let fileSystem: any FileSystem
    private let file: OpenFile
    private var piece: [UInt8] = []
    /// Where the next piece goes in the file.
    private var offset: Int
    /// Bytes appended so far.
    package private(set) var count = 0

    init(fileSystem: any FileSystem, file: OpenFile, at offset: Int) {
        self.fileSystem = fileSystem
        self.file = file
        self.offset = offset
        piece.reserveCapacity(SegmentOutput.flushThreshold)
    }

    /// Appends `bytes` to the contents.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)``.
    package func append(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let take = min(SegmentOutput.flushThreshold - piece.count, bytes.count - done)
            piece.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[done..<done + take]))
            done += take
            if piece.count == SegmentOutput.flushThreshold { try flush() }
        }
        count += bytes.count
    }

    /// Appends `bytes` to the contents.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)``.
    package func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try append($0) }
    }

    /// Hands what is buffered to the file.
    func flush() throws {
        guard !piece.isEmpty else { return }
        try piece.withUnsafeBytes { try fileSystem.writeAll(file, $0, at: Int64(offset)) }
        offset += piece.count
        piece.removeAll(keepingCapacity: true)
    }
}

/// A scratch file (``LogStore/withScratchFile(_:)``): bytes appended and read back by offset.
///
/// Not thread-safe; valid only during the call that made it. Nothing in it is durable.
package final class ScratchFile {
    private let fileSystem: any FileSystem
    private let file: OpenFile
    /// Bytes appended so far (the offset of the next append).
    package private(set) var size: Int64 = 0

    init(fileSystem: any FileSystem, file: OpenFile) {
        self.fileSystem = fileSystem
        self.file = file
    }

    /// Appends `bytes`; returns the offset they start at.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)``.
    @discardableResult
    package func append(_ bytes: UnsafeRawBufferPointer) throws -> Int64 {
        let start = size
        try fileSystem.writeAll(file, bytes, at: start)
        size += Int64(bytes.count)
        return start
    }

    /// Fills `buffer` with the bytes at `offset`, which must have been appended.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)``, `EIO` for a short read.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws {
        var done = 0
        while done < buffer.count {
            let n = try fileSystem.read(
                file, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]),
                at: offset + Int64(done))
            guard n > 0 else {
                throw LogStoreError.io(operation: "read", path: file.path, errno: EIO)
            }
            done += n
        }
    }
}
