import Foundation

/// What a save writes about itself, beside its changes and in the same commit: when, by whom,
/// and which fields each update changed (FORMAT.md Part 2, "History"). Every save and batch
/// operation writes one, under one key, so the live value is only the newest save's; the older
/// ones stay in the log with their commits, as long as the history retention keeps them.
///
/// ```
/// save := format: u8 = 1,
///         time: u64,            // a double: seconds since 2001-01-01 00:00:00 UTC
///         flags: u8,            // bit 0: an author follows; bits 1-7 zero
///         author: string,       // if bit 0
///         runCount: varint, run[runCount]
/// run  := count: varint,        // ≥ 1: this many of the commit's updates, in commit order…
///         fields: varint        // …changed these stored fields: bit i field i (i < 63),
///                               // bit 63 every field from 63 on
/// ```
struct SaveRecord: Equatable {
    static let format: UInt8 = 1

    /// A stretch of consecutive updates that changed the same fields.
    struct Run: Equatable {
        var count: Int
        var fields: UInt64
    }

    var time: Date
    var author: String?
    /// The updates' changed fields, in the order the commit writes their records.
    var runs: [Run] = []

    /// Records the next update of the commit, which changed `fields` (bit i: stored field i).
    mutating func updated(fields: UInt64) {
        if runs.last?.fields == fields {
            runs[runs.count - 1].count += 1
        } else {
            runs.append(Run(count: 1, fields: fields))
        }
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 16 + (author?.utf8.count ?? 0) + runs.count * 3)
        w.bytes.append(Self.format)
        w.double(time.timeIntervalSinceReferenceDate)
        w.bytes.append(author == nil ? 0 : 1)
        if let author { w.string(author) }
        w.varint(UInt64(runs.count))
        for run in runs {
            w.varint(UInt64(run.count))
            w.varint(run.fields)
        }
        return w.bytes
    }

    /// Decodes a save record read from the log.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` naming `logbook.history` and
    ///   `sequence`.
    init(decoding bytes: UnsafeRawBufferPointer, sequence: UInt64) throws {
        var runs: [Run] = []
        (time, author) = try Self.decode(bytes, sequence: sequence, runs: &runs)
        self.runs = runs
    }

    /// Decodes a save record read from the log: its time and author, and its runs appended to
    /// `runs` (a reader's scratch, so reading history allocates no array per save).
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` naming `logbook.history` and
    ///   `sequence`.
    static func decode(_ bytes: UnsafeRawBufferPointer, sequence: UInt64, runs: inout [Run])
        throws -> (time: Date, author: String?)
    {
        func damaged(_ reason: String) -> LogbookError {
            .corruptRecord(
                entity: Keyspaces.history, key: "save of commit \(sequence)", reason: reason)
        }
        var r = ByteReader(bytes)
        do {
            let format = try r.byte()
            guard format == Self.format else {
                throw damaged("unknown format \(format) (written by a newer Logbook?)")
            }
            let time = Date(timeIntervalSinceReferenceDate: try r.double())
            let flags = try r.byte()
            guard flags & ~1 == 0 else { throw damaged("unknown flags \(flags)") }
            let author = flags & 1 != 0 ? try r.string() : nil
            let count = try r.varint()
            // Each run takes at least two bytes: a hostile count cannot make a huge array.
            guard count <= UInt64(bytes.count) else { throw ByteReader.Truncated() }
            runs.reserveCapacity(runs.count + Int(count))
            for _ in 0..<count {
                let updates = try r.varint()
                guard updates >= 1, updates <= UInt64(Int32.max) else {
                    throw damaged("a run of \(updates) updates")
                }
                runs.append(Run(count: Int(updates), fields: try r.varint()))
            }
            guard r.isAtEnd else { throw damaged("\(bytes.count - r.offset) bytes after the runs") }
            return (time, author)
        } catch is ByteReader.Truncated {
            throw damaged("the record ends early")
        }
    }

    init(time: Date, author: String?) {
        self.time = time
        self.author = author
    }

    /// The time alone, read without decoding the rest (retention by age).
    static func time(in bytes: UnsafeRawBufferPointer) -> Date? {
        guard bytes.count >= 9, bytes[0] == format else { return nil }
        var r = ByteReader(bytes)
        r.offset = 1
        return (try? r.double()).map { Date(timeIntervalSinceReferenceDate: $0) }
    }
}

/// The bit of stored field `slot` in a save record's `fields` (and in ``ObjectEntry``'s
/// `changedSlots`, which uses the same layout).
@inline(__always)
func fieldBit(_ slot: Int) -> UInt64 { slot < 63 ? 1 << UInt64(slot) : 1 << 63 }
