/// The manifest of a backup (FORMAT.md, "Backups"): the point the backup holds, the files it is
/// made of with their checksums, and where the source's log goes on after that point, so that
/// the next backup into the same directory copies only the commits written since.
///
/// ```
/// manifest := header (magic "LBKBAK\r\n", version 1, fileOrder 0),
///             bodyLength: u32,                  // bytes from lastSequence to the end of the files
///             lastSequence: u64,                // the backup holds the state after this commit
///             created: u64,                     // a double's bits: seconds since 2001, UTC
///             identityLength: varint, identity: [identityLength]u8,   // at most 1,024 bytes
///             resumeOrder: u64, resumeOffset: u64, resumeTailCRC: u32,  // order 0: none
///             fileCount: varint, file[fileCount],
///             bodyCRC: u32                      // crc32c of bodyLength ..< bodyCRC
/// file     := kind: u8,                         // 1 segment, 2 prefix, 3 commits, 4 hint
///             nameLength: varint, name: [nameLength]u8,  // a store file name, at most 64 bytes
///             size: u64, crc: u32               // crc32c of the whole file
/// ```
struct BackupManifest: Equatable, Sendable {
    /// What a file of the backup is, which says when a later backup may reuse it.
    enum FileKind: UInt8, Sendable {
        /// A whole sealed segment of the source, byte for byte under its own name.
        case segment = 1
        /// The commits at the start of the source's newest segment, under its name, then a mark.
        case prefix = 2
        /// Commits the source wrote after the previous backup, then a mark: a segment of the
        /// backup's own, named after every earlier one.
        case commits = 3
        /// The hint file of a ``segment`` file, copied from the source.
        case hint = 4
    }

    /// One file of the backup.
    struct File: Equatable, Sendable {
        var name: String
        var kind: FileKind
        var size: UInt64
        var crc: UInt32
    }

    /// Where the source's log goes on: its next commit after ``lastSequence`` is at `offset` of
    /// the ordinary segment `order`, or at the start of a later ordinary segment. `tailCRC` is the
    /// crc32c of the segment's bytes `max(24, offset − 4096) ..< offset`, which a later backup
    /// compares to tell that the source still holds the same log there.
    struct Resume: Equatable, Sendable {
        var order: UInt64
        var offset: UInt64
        var tailCRC: UInt32
    }

    static let name = "backup.manifest"
    static let version: UInt16 = 1
    static let maxIdentityLength = 1024
    static let maxNameLength = 64
    /// Bytes of the segment before a resume offset that ``Resume/tailCRC`` covers.
    static let tailWindow = 4096

    var lastSequence: UInt64
    var created: Double
    var identity: [UInt8]
    var resume: Resume?
    var files: [File]

    func encoded() -> [UInt8] {
        var bytes = FileHeader(kind: .backupManifest, fileOrder: 0).encoded()
        bytes.appendLE(UInt32(0))  // bodyLength, set below
        bytes.appendLE(lastSequence)
        bytes.appendLE(created.bitPattern)
        Varint.append(UInt64(identity.count), to: &bytes)
        bytes.append(contentsOf: identity)
        bytes.appendLE(resume?.order ?? 0)
        bytes.appendLE(resume?.offset ?? 0)
        bytes.appendLE(resume?.tailCRC ?? 0)
        Varint.append(UInt64(files.count), to: &bytes)
        for file in files {
            bytes.append(file.kind.rawValue)
            Varint.append(UInt64(file.name.utf8.count), to: &bytes)
            bytes.append(contentsOf: file.name.utf8)
            bytes.appendLE(file.size)
            bytes.appendLE(file.crc)
        }
        bytes.storeLE(UInt32(bytes.count - FileHeader.size - 4), at: FileHeader.size)
        let crc = bytes.withUnsafeBytes {
            Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0[FileHeader.size...]))
        }
        bytes.appendLE(crc)
        return bytes
    }

    /// Decodes and checks a manifest; `path` is for errors.
    /// - Throws: ``LogStoreError/corruption(path:offset:reason:)`` for any byte that breaks the
    ///   grammar or a checksum; ``LogStoreError/unsupportedVersion(path:found:supported:)``.
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String) throws -> BackupManifest {
        _ = try FileHeader.decode(bytes, kind: .backupManifest, path: path)
        func damage(_ offset: Int, _ reason: String) -> LogStoreError {
            .corruption(path: path, offset: Int64(offset), reason: reason)
        }
        let bodyStart = FileHeader.size + 4
        guard bytes.count >= bodyStart + 4 else {
            throw damage(FileHeader.size, "manifest ends early")
        }
        let bodyLength = Int(bytes.loadLE(at: FileHeader.size, as: UInt32.self))
        guard bodyStart + bodyLength + 4 == bytes.count else {
            throw damage(
                FileHeader.size, "body length \(bodyLength) does not match the file's size")
        }
        let stored = bytes.loadLE(at: bytes.count - 4, as: UInt32.self)
        let computed = Checksum.crc32c(
            UnsafeRawBufferPointer(rebasing: bytes[FileHeader.size..<(bytes.count - 4)]))
        guard stored == computed else {
            throw damage(bytes.count - 4, "manifest checksum mismatch")
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 4)])
        var offset = bodyStart
        func fixed<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
            guard body.count - offset >= MemoryLayout<T>.size else {
                throw damage(offset, "manifest ends early")
            }
            defer { offset += MemoryLayout<T>.size }
            return body.loadLE(at: offset, as: T.self)
        }
        func counted(limit: Int) throws -> [UInt8] {
            let start = offset
            guard let length = Varint.read(body, &offset), length <= UInt64(limit),
                body.count - offset >= Int(length)
            else { throw damage(start, "a length is malformed or over \(limit)") }
            defer { offset += Int(length) }
            return Array(body[offset..<(offset + Int(length))])
        }
        let lastSequence = try fixed(UInt64.self)
        let created = Double(bitPattern: try fixed(UInt64.self))
        let identity = try counted(limit: maxIdentityLength)
        let resume = Resume(
            order: try fixed(UInt64.self), offset: try fixed(UInt64.self),
            tailCRC: try fixed(UInt32.self))
        let countStart = offset
        // Each file entry takes at least 15 bytes: never trust a count beyond that.
        guard let count = Varint.read(body, &offset),
            count <= UInt64((body.count - offset) / 15 + 1)
        else { throw damage(countStart, "the file count is malformed or too large") }
        var files: [File] = []
        for _ in 0..<count {
            let kindOffset = offset
            guard let kind = FileKind(rawValue: try fixed(UInt8.self)) else {
                throw damage(kindOffset, "unknown file kind")
            }
            let nameOffset = offset
            guard let name = String(validating: try counted(limit: maxNameLength), as: UTF8.self),
                !name.isEmpty, !name.contains("/"), name != ".", name != ".."
            else { throw damage(nameOffset, "a file name is not a plain name") }
            files.append(
                File(
                    name: name, kind: kind, size: try fixed(UInt64.self),
                    crc: try fixed(UInt32.self)))
        }
        guard offset == body.count else { throw damage(offset, "bytes left over after the files") }
        return BackupManifest(
            lastSequence: lastSequence, created: created, identity: identity,
            resume: resume.order == 0 ? nil : resume, files: files)
    }

    /// The crc32c of `bytes[max(24, offset − 4096) ..< offset]`, a resume point's ``Resume/tailCRC``.
    static func tailCRC(_ bytes: UnsafeRawBufferPointer, offset: Int) -> UInt32 {
        let start = max(FileHeader.size, offset - tailWindow)
        guard offset > start, offset <= bytes.count else { return 0 }
        return Checksum.crc32c(UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
    }
}
