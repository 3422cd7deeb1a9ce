/// The matches of a fetch in order, as identifiers: what ``ModelContext/enumerate(_:batchSize:_:)``
/// and ``FetchResultsCollection`` build their objects from, a batch at a time. A fetch over a
/// hierarchy holds the matches of several entities, in runs of one entity each.
struct OrderedMatches {
    /// The matches' primary keys, in order.
    var primaryKeys: [UInt64] = []
    /// Where each run of one entity's matches starts in `primaryKeys`, in order.
    /// Invariant: the first run starts at 0, and starts increase.
    var runs: [(start: Int, binding: EntityBinding)] = []

    var count: Int { primaryKeys.count }

    /// Appends the match `pk` of `binding`.
    mutating func append(_ binding: EntityBinding, _ pk: UInt64) {
        if runs.last?.binding !== binding { runs.append((primaryKeys.count, binding)) }
        primaryKeys.append(pk)
    }

    /// The entity of the match at `position`.
    /// - Complexity: O(log runs).
    func binding(at position: Int) -> EntityBinding {
        var low = 0
        var high = runs.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if runs[middle].start <= position { low = middle } else { high = middle - 1 }
        }
        return runs[low].binding
    }

    /// The matches from `offset` on, at most `limit` of them.
    func sliced(offset: Int?, limit: Int?) -> OrderedMatches {
        let start = min(max(offset ?? 0, 0), count)
        let end = limit.map { min(start + max($0, 0), count) } ?? count
        var result = OrderedMatches()
        for i in start..<end { result.append(binding(at: i), primaryKeys[i]) }
        return result
    }
}
