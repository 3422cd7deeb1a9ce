/// Comparing the index a key directory file gives with the one the log gives: what
/// ``LogInspector/verify(storeAt:)`` checks beyond `open`'s checks. A file whose CRCs
/// match can still be wrong (forged, or written by a faulty writer); `open` trusts it, so
/// `verify` is where such a file is found.
///
/// The file describes the index of a prefix of the log: the segments it lists, the last one up
/// to the size it recorded. Open replays the rest of the log over it by the same code a rebuild
/// would, so the file is right exactly when its index equals the one that prefix gives. That is
/// what is compared, in bounded memory: the keys are split by the part of each keyspace's table
/// where their hash puts them, and each pass replays the prefix for one part only and compares
/// it with that part of the mapped table, then lets both go. Memory is then about
/// ``comparisonPassBytes`` however many keys the store holds; the cost is one read of the
/// prefix a pass.
extension KeyDirectoryFile {
    /// Bytes of table, the mapped slice and the rebuilt one together, that one pass of the
    /// comparison may hold: 2 passes at 1M keys, 16 at 10M (with 32 MiB, `verify` of 10M keys
    /// peaked at 64.0 MiB, the tools' budget).
    static let comparisonPassBytes = 25 << 20

    /// The most passes a comparison makes.
    static let maxComparisonPasses = 1 << 12

    /// Why the index the key directory file gives (`start`, as ``Replay/loadKeyDirectory(_:)``
    /// loaded it) differs from the one a replay of the log prefix it covers gives, or `nil` if
    /// they hold the same keyspaces, and in each the same keys pointing at the same records with
    /// the same counts and live bytes; also `nil` if that prefix cannot be replayed (damage,
    /// which verify reports on its own).
    /// - Parameter passBytes: the table bytes a pass may hold (``comparisonPassBytes``).
    /// - Complexity: O(passes × bytes of the prefix), passes = 2 × table bytes / `passBytes`;
    ///   memory about `passBytes` and a few MiB of the log, whatever the number of keys.
    static func difference(_ start: Replay.KeyDirectoryStart, passBytes: Int) -> String? {
        let mapped = start.state
        let segments = mapped.segments.prefix(start.covered).compactMap { $0 }
        guard segments.count == start.covered else { return nil }
        let tables = mapped.directories
        let tableBytes = tables.dropFirst().reduce(0) { $0 + $1.memoryBytes }
        let passes = min(
            Self.maxComparisonPasses, max(1, (2 * tableBytes + passBytes - 1) / max(passBytes, 1)))
        var counts = [Int](repeating: 0, count: tables.count)
        var bytes = [Int64](repeating: 0, count: tables.count)
        defer { for table in tables { table.table.releasePages(below: table.capacity) } }
        for pass in 0..<passes {
            // The slots of each table whose keys this pass compares.
            let slots = tables.map { table in
                (table.capacity * pass / passes)..<(table.capacity * (pass + 1) / passes)
            }
            guard
                let rebuilt = replay(
                    segments, through: start.recordedSize, bases: mapped.bases,
                    masks: tables.map { $0.capacity - 1 }, slots: slots,
                    expected: tables.map { $0.count / passes })
            else { return nil }
            if pass == 0, let problem = keyspaceDifference(mapped, rebuilt.keyspaces) {
                return problem
            }
            if let problem = entryDifference(
                tables, rebuilt.directories, mapped.keyspaces, orders: segments.map(\.order))
            {
                return problem
            }
            for id in 1..<tables.count {
                counts[id] += rebuilt.directories[id].count
                bytes[id] += rebuilt.directories[id].liveBytes
            }
            // What this pass touched of the tables comes back from the page cache if needed.
            for table in tables { table.table.releasePages(below: table.capacity) }
        }
        for id in 1..<tables.count
        where counts[id] != tables[id].count
            || bytes[id] != tables[id].liveBytes
        {
            return
                "\(label(mapped.keyspaces, id)) has \(tables[id].count) keys of \(tables[id].liveBytes) bytes where the log gives \(counts[id]) of \(bytes[id])"
        }
        return nil
    }

    /// `keyspace "name"`, for messages.
    private static func label(_ keyspaces: KeyspaceTable, _ id: Int) -> String {
        "keyspace \"\((keyspaces.name(of: id) ?? "").prefix(40))\""
    }

    /// Why the keyspaces the file defines differ from those the log prefix defines, or `nil`.
    private static func keyspaceDifference(_ mapped: StoreState, _ log: KeyspaceTable) -> String? {
        guard mapped.keyspaces.nextID == log.nextID else {
            return
                "it gives \(mapped.keyspaces.nextID - 1) keyspaces where the log gives \(log.nextID - 1)"
        }
        for id in 1..<log.nextID {
            let name = log.name(of: id) ?? ""
            guard mapped.keyspaces.name(of: id) == name, mapped.indexed[id] else {
                return "its keyspace \(id) is not keyspace \"\(name.prefix(40))\""
            }
        }
        return nil
    }

    /// Why `tables` (the file's) lack an entry of `rebuilt` (one pass's part of the log's
    /// index), or `nil`. Compares references only: it reads no record.
    private static func entryDifference(
        _ tables: [KeyDirectory], _ rebuilt: [KeyDirectory], _ keyspaces: KeyspaceTable,
        orders: [UInt64]
    ) -> String? {
        for id in 1..<tables.count {
            let table = tables[id].table
            let log = rebuilt[id].table
            let mask = table.count - 1
            for slot in 0..<log.count where !log[slot].isEmpty {
                let entry = log[slot]
                var probe = Int(entry.hash) & mask
                var found = false
                // Every probe ends: the tables' load is at most 3/4.
                while !table[probe].isEmpty {
                    let candidate = table[probe]
                    if candidate.hash == entry.hash && candidate.ref == entry.ref {
                        found = true
                        break
                    }
                    probe = (probe + 1) & mask
                }
                guard found else {
                    return
                        "\(label(keyspaces, id)) does not point at the record at offset \(entry.ref.offset) of \(StoreFiles.segmentName(order: orders[Int(entry.ref.segment)])), which holds a live key"
                }
            }
        }
        return nil
    }

    /// What one pass rebuilt: the keyspaces the prefix defines and, by keyspace number, the
    /// index of the keys whose home slot in the file's table lies in the pass's slots.
    private struct PartialIndex {
        var keyspaces: KeyspaceTable
        var directories: [KeyDirectory]
    }

    /// Replays the records of `segments` (the last one through `recordedSize`) whose key's home
    /// slot in its keyspace's table of the file (`hash & masks[keyspace]`: the tables' capacities
    /// are powers of two) is in `slots[keyspace]`, about `expected[keyspace]` keys; `nil` if a
    /// commit is damaged. Pages of the log are released behind the scan, and those an update's
    /// read of the record it replaces brings back too.
    private static func replay(
        _ segments: [Segment], through recordedSize: Int, bases: SegmentBases, masks: [Int],
        slots: [Range<Int>], expected: [Int]
    ) -> PartialIndex? {
        var keyspaces = KeyspaceTable()
        let keyspaceCount = masks.count
        var directories = [KeyDirectory](repeating: KeyDirectory(), count: keyspaceCount)
        // Room for the keys the slice should hold, so the table is not grown (and held twice
        // while it is) on the way.
        for id in 1..<keyspaceCount { directories[id].reserve(expected[id] + expected[id] / 16) }
        for (i, segment) in segments.enumerated() {
            let size = i == segments.count - 1 ? min(recordedSize, segment.size) : segment.size
            var scanner = SegmentScanner(
                bytes: UnsafeRawBufferPointer(rebasing: segment.bytes()[..<size]),
                keyspaces: keyspaces)
            scanner.releaseStride = WalkPageRelease.step
            // From the start: an update's read of the record it replaces may bring back a page
            // the scan has passed.
            scanner.releasePages = { segment.releasePages(from: 0, to: $1) }
            defer { segment.releasePages() }
            while let event = scanner.next() {
                guard case .commit(_, let start, let end) = event else { return nil }
                scanner.forEachRecord(start: start, end: end) { record in
                    let id = Int(clamping: record.keyspace)
                    guard record.op != RecordOp.defineKeyspace, id < keyspaceCount else { return }
                    let hash = KeyDirectory.hash(record.key)
                    guard slots[id].contains(Int(hash) & masks[id]) else { return }
                    if record.op == RecordOp.put {
                        _ = directories[id].set(
                            hash: hash,
                            to: RecordRef(segment: UInt32(i), offset: UInt32(record.recordOffset)),
                            bytes: record.key.count + record.value!.count,
                            recordSize: record.encodedSize, bases)
                    } else {
                        _ = directories[id].remove(record.key, bases)
                    }
                }
            }
            keyspaces = scanner.keyspaces
        }
        return PartialIndex(keyspaces: keyspaces, directories: directories)
    }
}
