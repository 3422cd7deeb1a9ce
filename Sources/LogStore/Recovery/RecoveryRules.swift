/// The decisions of FORMAT.md's recovery table, in one place: `open` acts on them and
/// ``LogInspector/verify(storeAt:)`` reports them, so the two never disagree.
enum RecoveryRules {
    /// What a segment's header says.
    enum Header {
        case valid(FileHeader)
        /// The newest segment is no longer than a header and holds no whole, intact one: what a
        /// crash while it was being created leaves (a new segment's header is synced before
        /// anything is written after it, so a longer file had a durable header). It holds no
        /// commit.
        case tornCreation(reason: String)
        /// Damage (``LogStoreError/corruption(path:offset:reason:)``), or a version this library
        /// does not read (``LogStoreError/unsupportedVersion(path:found:supported:)``).
        case invalid(LogStoreError)
    }

    /// Checks the header of the segment `bytes` (of `order`, named `path`); `newest` is whether
    /// it is the last in replay order.
    static func header(of bytes: UnsafeRawBufferPointer, order: UInt64, newest: Bool, path: String)
        -> Header
    {
        do {
            let header = try FileHeader.decode(bytes, kind: .segment, path: path)
            guard header.fileOrder == order else {
                // The CRC matched: written that way (a file copied under another name).
                return .invalid(
                    .corruption(
                        path: path, offset: 12,
                        reason:
                            "header names segment \(hex16(header.fileOrder)), not the one in the file name"
                    ))
            }
            return .valid(header)
        } catch let error as LogStoreError {
            if case .unsupportedVersion = error { return .invalid(error) }
            if newest && bytes.count <= FileHeader.size {
                return .tornCreation(
                    reason: bytes.count < FileHeader.size
                        ? "incomplete header (\(bytes.count) of \(FileHeader.size) bytes)"
                        : "header never completed (\(error.reason))")
            }
            return .invalid(error)
        } catch {
            return .invalid(.invalidArgument("\(error)"))
        }
    }

    /// What damage the scanner of a segment reported is.
    enum Damage: Equatable {
        /// A torn tail: cut at the damaged commit.
        case tornTail
        /// Corruption: an error naming the file and the first bad byte, or (salvage) a skip.
        case corruption
        /// Bytes of the newest segment that a reader without the lock read while the writer
        /// was writing them: a mark vouches for them, and read again they hold a whole commit.
        /// Scan again from the damaged commit's start (once: the second read sees the bytes the
        /// writer finished before that mark).
        case writtenSinceRead
    }

    /// Classifies `damage`, found by `scanner` in a segment that is the newest or not.
    static func classify(
        _ damage: SegmentScanner.Damage, in scanner: SegmentScanner, newest: Bool
    ) -> Damage {
        guard newest else { return .corruption }
        if scanner.isTornWrite(damage) { return .tornTail }
        return scanner.checksWholeReadAgain(damage) ? .writtenSinceRead : .corruption
    }
}

extension LogStoreError {
    /// The reason of a corruption error, or its description.
    var reason: String {
        if case .corruption(_, _, let reason) = self { return reason }
        return description
    }
}
