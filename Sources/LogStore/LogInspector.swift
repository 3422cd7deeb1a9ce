/// Reads a store's files record by record, for tools (`logbook dump`, `logbook verify`). It never
/// writes and needs no lock, so it works on a store another process has open for writing; it
/// sees the commits complete when it reads each file.
public enum LogInspector {
    /// What a record does.
    public enum RecordKind: String, Sendable {
        case put, delete
        /// Names a keyspace number (FORMAT.md, "Records").
        case defineKeyspace = "define-keyspace"
    }

    /// One record, where it lies and what it holds.
    public struct Record: Sendable {
        /// The segment file's name.
        public var segment: String
        /// Offset of the frame that holds the record.
        public var frameOffset: Int64
        /// Offset of the record's first byte.
        public var recordOffset: Int64
        /// The commit's sequence number.
        public var sequence: UInt64
        public var kind: RecordKind
        /// The keyspace's name (for `defineKeyspace`, the name it defines).
        public var keyspace: String
        /// The key (empty for `defineKeyspace`).
        public var key: [UInt8]
        /// The value of a put.
        public var value: [UInt8]?
    }

    /// Damage found in a file.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var offset: Int64
        public var reason: String
        /// Whether this is an incomplete last commit (what a crash leaves; `open` cuts it).
        public var isTornTail: Bool

        public var description: String {
            "\(path) at offset \(offset): \(reason)\(isTornTail ? " (torn tail: an incomplete last commit)" : "")"
        }
    }

    /// Counts from a walk.
    public struct Summary: Sendable, Equatable {
        public var segments = 0
        public var commits = 0
        public var records = 0
        public var bytes: Int64 = 0
        public var lastSequence: UInt64 = 0
        public var problems: [Problem] = []

        /// An empty summary.
        public init() {}
    }

    /// Calls `body` with every record of every complete commit, in replay order. Damaged regions
    /// are skipped and listed in the summary; a file that cannot be read at all is listed too.
    /// - Throws: ``LogStoreError/io(operation:path:errno:)`` if the directory cannot be listed,
    ///   ``LogStoreError/invalidArgument(_:)`` if `path` is not a directory, or what `body` throws.
    @discardableResult
    public static func walk(storeAt path: String, _ body: (Record) throws -> Void) throws -> Summary
    {
        let fs = PosixFileSystem()
        guard fs.kind(of: path) == .directory else {
            throw LogStoreError.invalidArgument("\(path) is not a store directory")
        }
        var summary = Summary()
        var keyspaces = KeyspaceTable()
        let orders = try fs.contents(ofDirectory: path).compactMap(Segment.order(fromFileName:))
            .sorted()
        for (i, order) in orders.enumerated() {
            let newest = i == orders.count - 1
            let segment: Segment
            do {
                segment = try Segment(
                    directory: path, order: order, handle: UInt32(i), fileSystem: fs, growing: false
                )
            } catch let error as LogStoreError {
                summary.problems.append(
                    Problem(
                        path: path + "/" + Segment.fileName(order: order), offset: 0,
                        reason: error.description, isTornTail: false))
                continue
            }
            summary.segments += 1
            summary.bytes += Int64(segment.size)
            let name = Segment.fileName(order: order)
            let bytes = segment.bytes()
            do {
                let header = try FileHeader.decode(bytes, kind: .segment, path: segment.path)
                if header.fileOrder != order {
                    summary.problems.append(
                        Problem(
                            path: segment.path, offset: 12, reason: "header names another segment",
                            isTornTail: false))
                }
            } catch let error as LogStoreError {
                let torn = newest && bytes.count < FileHeader.size
                summary.problems.append(
                    Problem(
                        path: segment.path, offset: 0,
                        reason: torn ? "incomplete header" : error.description, isTornTail: torn))
                continue
            }
            var scanner = SegmentScanner(bytes: bytes)
            while let event = scanner.next() {
                switch event {
                case .commit(let sequence, let start, let end):
                    summary.commits += 1
                    summary.lastSequence = max(summary.lastSequence, sequence)
                    var frame = start
                    try scanner.forEachRecord(start: start, end: end) { record in
                        while frame + Frame.headerSize + FrameHeader(bytes, at: frame).length
                            <= record.recordOffset
                        {
                            frame += Frame.headerSize + FrameHeader(bytes, at: frame).length
                        }
                        summary.records += 1
                        let id = Int(clamping: record.keyspace)
                        let kind: RecordKind
                        var keyspace: String
                        if record.op == RecordOp.defineKeyspace {
                            kind = .defineKeyspace
                            keyspace = String(decoding: record.key, as: UTF8.self)
                            _ = keyspaces.define(keyspace, id: id)
                        } else {
                            kind = record.op == RecordOp.put ? .put : .delete
                            keyspace = keyspaces.name(of: id) ?? "#\(id)"
                        }
                        try body(
                            Record(
                                segment: name, frameOffset: Int64(frame),
                                recordOffset: Int64(record.recordOffset),
                                sequence: sequence, kind: kind, keyspace: keyspace,
                                key: kind == .defineKeyspace ? [] : [UInt8](record.key),
                                value: record.value.map { [UInt8]($0) }))
                    }
                case .damage(let commitStart, let offset, let reason, let checksummed):
                    let resume = scanner.findNextFrame(after: offset)
                    let torn =
                        newest
                        && scanner.isTornWrite(
                            commitStart: commitStart, offset: offset, checksummed: checksummed)
                    summary.problems.append(
                        Problem(
                            path: segment.path, offset: Int64(torn ? commitStart : offset),
                            reason: reason, isTornTail: torn))
                    // Recovery drops everything after a torn write.
                    guard let resume, !torn else {
                        scanner.position = bytes.count
                        continue
                    }
                    scanner.position = resume
                }
            }
        }
        return summary
    }
}
