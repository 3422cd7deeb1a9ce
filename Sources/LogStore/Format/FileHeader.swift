/// The 24-byte header that starts every segment and hint file (FORMAT.md, "File header").
///
/// ```
/// magic:         [8]u8  // "LBKSEG\r\n" (segment), "LBKHNT\r\n" (hint), "LBKDIR\r\n" (key directory),
///                       // "LBKBAK\r\n" (backup manifest)
/// formatVersion: u16    // segments 2 (1: no sync marks; still read); hints 3 (1, 2: no
///                       // packed entries; still read)
/// flags:         u16    // 0; any bit set is refused as an unsupported version
/// fileOrder:     u64    // the segment's place in replay order, equal to the one in the file name
/// headerCRC:     u32    // CRC32C of bytes 0..<20
/// ```
struct FileHeader: Equatable {
    enum Kind {
        case segment, hint, keyDirectory, backupManifest

        var magic: [UInt8] {
            switch self {
            case .segment: return Array("LBKSEG\r\n".utf8)
            case .hint: return Array("LBKHNT\r\n".utf8)
            case .keyDirectory: return Array("LBKDIR\r\n".utf8)
            case .backupManifest: return Array("LBKBAK\r\n".utf8)
            }
        }

        /// What the kind is called in errors.
        var noun: String {
            switch self {
            case .segment: return "segment"
            case .hint: return "hint"
            case .keyDirectory: return "key directory"
            case .backupManifest: return "backup manifest"
            }
        }
    }

    static let size = 24
    /// The segment version this library writes: 3 allows a zero tail (``ZeroTail``), 2 added
    /// sync marks.
    static let currentVersion: UInt16 = 3
    /// The hint version this library writes: 3 added packed entries (FORMAT.md, "Hint files").
    static let currentHintVersion: UInt16 = 3
    /// The oldest version it reads: version 1 is version 2 without sync marks.
    static let oldestReadableVersion: UInt16 = 1

    var kind: Kind
    var fileOrder: UInt64
    var version: UInt16

    init(kind: Kind, fileOrder: UInt64, version: UInt16? = nil) {
        self.kind = kind
        self.fileOrder = fileOrder
        self.version = version ?? Self.newestVersion(of: kind)
    }

    /// The newest version of a `kind` file this library reads, and the one it writes.
    static func newestVersion(of kind: Kind) -> UInt16 {
        switch kind {
        case .segment: return currentVersion
        case .hint: return currentHintVersion
        case .keyDirectory: return KeyDirectoryFile.version
        case .backupManifest: return BackupManifest.version
        }
    }

    func encoded() -> [UInt8] {
        var bytes = kind.magic
        bytes.reserveCapacity(Self.size)
        bytes.appendLE(version)
        bytes.appendLE(UInt16(0))
        bytes.appendLE(fileOrder)
        let crc = bytes.withUnsafeBytes { Checksum.crc32c($0) }
        bytes.appendLE(crc)
        return bytes
    }

    /// Decodes and checks a header (FORMAT.md, "File header"), in this order: the length, the
    /// magic, the CRC, then the version and flags. The CRC comes before the version because the
    /// 24-byte layout is the same in every version: a version byte that a flip changed is damage,
    /// not a newer format. `path` is for errors.
    /// - Throws: ``LogStoreError/corruption(path:offset:reason:)`` for a short file, a wrong magic,
    ///   a bad CRC or version 0; ``LogStoreError/unsupportedVersion(path:found:supported:)`` for a
    ///   newer version or a flag this version does not know.
    static func decode(_ bytes: UnsafeRawBufferPointer, kind: Kind, path: String) throws
        -> FileHeader
    {
        guard bytes.count >= size else {
            throw LogStoreError.corruption(
                path: path, offset: 0,
                reason: "file is \(bytes.count) bytes, shorter than its \(size)-byte header")
        }
        guard bytes.prefix(8).elementsEqual(kind.magic) else {
            throw LogStoreError.corruption(
                path: path, offset: 0,
                reason: "not a Logbook \(kind.noun) file (bad magic)")
        }
        let stored = bytes.loadLE(at: 20, as: UInt32.self)
        let computed = Checksum.crc32c(UnsafeRawBufferPointer(rebasing: bytes[0..<20]))
        guard stored == computed else {
            throw LogStoreError.corruption(
                path: path, offset: 20, reason: "file header checksum mismatch")
        }
        let version = bytes.loadLE(at: 8, as: UInt16.self)
        let flags = bytes.loadLE(at: 10, as: UInt16.self)
        guard version >= oldestReadableVersion else {
            throw LogStoreError.corruption(
                path: path, offset: 8, reason: "format version 0 is not valid")
        }
        // A newer version, or a flag (a feature this version does not know).
        guard version <= newestVersion(of: kind), flags == 0 else {
            throw LogStoreError.unsupportedVersion(
                path: path, found: version, supported: newestVersion(of: kind))
        }
        return FileHeader(
            kind: kind, fileOrder: bytes.loadLE(at: 12, as: UInt64.self), version: version)
    }
}
