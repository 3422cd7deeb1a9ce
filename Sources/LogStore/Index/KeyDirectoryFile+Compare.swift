/// Comparing the index a key directory file gives with the one the log gives: what
/// ``LogInspector/verify(storeAt:visit:)`` checks beyond `open`'s checks. A file whose CRCs
/// match can still be wrong (forged, or written by a faulty writer); `open` trusts it, so
/// `verify` is where such a file is found.
extension KeyDirectoryFile {
    /// Why `mapped` (an index replayed from the key directory file and the log past it) differs
    /// from `rebuilt` (the index replayed from hints and segments alone), or `nil` if they hold
    /// the same keyspaces, and in each the same keys pointing at the same records with the same
    /// counts and live bytes. Compares references only: it reads no record.
    /// - Complexity: O(keys): one probe of `mapped`'s table for each entry of `rebuilt`.
    static func difference(mapped: IndexState, rebuilt: IndexState) -> String? {
        guard mapped.keyspaces.nextID == rebuilt.keyspaces.nextID else {
            return
                "it gives \(mapped.keyspaces.nextID - 1) keyspaces where the log gives \(rebuilt.keyspaces.nextID - 1)"
        }
        // Segments by handle, as (order, size): handles may differ between the two replays.
        func order(_ state: IndexState, _ ref: RecordRef) -> UInt64? {
            Int(ref.segment) < state.segments.count ? state.segments[Int(ref.segment)]?.order : nil
        }
        for id in 1..<rebuilt.keyspaces.nextID where rebuilt.indexed[id] {
            let name = rebuilt.keyspaces.name(of: id) ?? ""
            let label = "keyspace \"\(name.prefix(40))\""
            guard mapped.keyspaces.name(of: id) == name, mapped.indexed[id] else {
                return "its keyspace \(id) is not \(label)"
            }
            let ours = mapped.directories[id]
            let log = rebuilt.directories[id]
            guard ours.count == log.count, ours.liveBytes == log.liveBytes else {
                return
                    "\(label) has \(ours.count) keys of \(ours.liveBytes) bytes where the log gives \(log.count) of \(log.liveBytes)"
            }
            let table = ours.table
            let mask = table.count - 1
            for slot in 0..<log.table.count where !log.table[slot].isEmpty {
                let entry = log.table[slot]
                let wanted = (order(rebuilt, entry.ref), entry.ref.offset)
                var probe = Int(entry.hash) & mask
                var found = false
                // Every probe ends: the tables' load is at most 3/4.
                while !table[probe].isEmpty {
                    let candidate = table[probe]
                    if candidate.hash == entry.hash
                        && (order(mapped, candidate.ref), candidate.ref.offset) == wanted
                    {
                        found = true
                        break
                    }
                    probe = (probe + 1) & mask
                }
                guard found else {
                    return
                        "\(label) does not point at the record at offset \(entry.ref.offset) of \(StoreFiles.segmentName(order: wanted.0 ?? 0)), which holds a live key"
                }
            }
        }
        return nil
    }
}

extension Replay {
    /// Why the index an open of the store at `path` takes from its key directory file differs
    /// from the one its hints and segments give (``KeyDirectoryFile/difference(mapped:rebuilt:)``),
    /// or `nil`: also when the file is not used, or the log cannot be replayed (other checks
    /// report both). Opens read-only; changes nothing.
    static func keyDirectoryDifference(storeAt path: String, fileSystem fs: any FileSystem)
        -> String?
    {
        var options = LogStoreOptions()
        options.readOnly = true
        options.fileSystem = fs
        var mapped = Replay(path: path, options: options)
        var rebuilt = Replay(path: path, options: options)
        rebuilt.usesKeyDirectory = false
        guard let fromFile = try? mapped.run(), mapped.report.usedKeyDirectory,
            let fromLog = try? rebuilt.run()
        else { return nil }
        return KeyDirectoryFile.difference(mapped: fromFile.state, rebuilt: fromLog.state).map {
            "open would use it, but " + $0
        }
    }
}
