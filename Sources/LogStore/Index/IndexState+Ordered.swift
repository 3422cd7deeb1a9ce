/// Keeping the key order of ordered keyspaces (``OrderedKeys``) in step with the index.
extension IndexState {
    /// Declares the keyspaces named in `names` ordered and builds their key order from their
    /// key directories (after replay, so that replay itself pays nothing for it). A keyspace
    /// defined later with one of these names starts ordered and empty.
    mutating func buildOrder(
        of names: Set<String>, deltaLimit: Int = OrderedKeys.defaultDeltaLimit
    ) {
        guard !names.isEmpty else { return }
        orderedNames = names
        orderedDeltaLimit = deltaLimit
        ordered = []
        for id in 0..<directories.count {
            let ordered = keyspaces.name(of: id).map { names.contains($0) } ?? false
            self.ordered.append(
                ordered ? OrderedKeys.build(from: directories[id], deltaLimit: deltaLimit, bases) : nil)
        }
    }

    /// Gives every keyspace defined since the last call its (empty) key order if it is ordered.
    mutating func extendOrder() {
        while ordered.count < directories.count {
            let name = keyspaces.name(of: ordered.count) ?? ""
            ordered.append(orderedNames.contains(name) ? OrderedKeys(deltaLimit: orderedDeltaLimit) : nil)
        }
    }
}
