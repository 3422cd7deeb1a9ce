extension LogStore {
    /// Drops from this process's memory the pages of the store's mapped files: every segment's,
    /// and those of a key directory file's tables that nothing has written since they were
    /// mapped. The pages stay in the page cache and come back on the next touch, so this
    /// changes memory, never what a read sees. A tool that reads many records by key calls it
    /// every few dozen reads: each read maps 64 KiB around the table slot and around the record
    /// (the kernel's fault-around), so a few thousand reads over a large store would otherwise
    /// keep hundreds of megabytes of it mapped.
    ///
    /// Thread-safe (it holds the index lock); advice only: it cannot fail, and does nothing on a
    /// closed store.
    /// - Complexity: one `madvise` per segment and per mapped table.
    public func releaseMappedPages() {
        index.withLock { state in
            guard !state.closed else { return }
            for segment in state.segments { segment?.releasePages() }
            for directory in state.directories {
                // Only an unwritten mapping: a written page is this process's own copy.
                directory.table.releasePages(below: directory.capacity)
            }
        }
    }
}
