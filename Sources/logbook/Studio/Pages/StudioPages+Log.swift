import Foundation
import LogStore
import Logbook

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The Log view: each segment as a bar of live and dead bytes, the sizes of the files beside
/// them, and what a compaction would reclaim.
extension StudioPages {
    /// `/log`.
    func log() throws -> HTTPResponse {
        let container = session.current.container
        let store = container.store
        let stats = try store.stats()
        let segments = try store.segmentStats()
        let files = try StoreFiles(storeAt: session.path)
        let retention = (try? container.historyRetention).map(Self.describe) ?? "unknown"
        let compact: HTML =
            session.writable
            ? """
            <form class="write" method="post" action="/compact" data-confirm="Compact the store now?">
            <button type="submit">Compact now</button></form>
            """
            : "<p class=\"note\">Run the studio with <code>--write</code> to compact from here, or run <code>logbook compact</code>.</p>"
        let body: HTML = """
            <h1>Log</h1>
            <p>\(stats.segments) \(stats.segments == 1 ? "segment" : "segments"), \
            \(Formatting.byteCount(stats.fileBytes)): \(Formatting.byteCount(stats.liveBytes)) live, \
            \(Formatting.byteCount(stats.deadBytes)) dead (space amplification \
            \(Formatting.fixed(stats.spaceAmplification, digits: 2))×).</p>
            <section aria-labelledby="segments-title">
            <h2 id="segments-title">Segments</h2>
            \(segmentBars(segments))
            \(segmentTable(segments))
            </section>
            <section aria-labelledby="compaction-title">
            <h2 id="compaction-title">Compaction</h2>
            <p id="reclaim">A compaction would reclaim up to <strong>\(Formatting.byteCount(stats.deadBytes))</strong>: \
            the dead bytes, less those of saves the history retention keeps (\(retention)).</p>
            \(compact)
            </section>
            <section aria-labelledby="files-title">
            <h2 id="files-title">Files beside the segments</h2>
            \(fileTable(files))
            </section>
            """
        return document(title: "Log", section: .log, live: true, body: body)
    }

    private static func describe(_ retention: HistoryRetention) -> String {
        switch retention {
        case .untilCompaction: return "none: compaction drops old saves"
        case .saves(let n): return "the last \(n) saves"
        case .days(let days): return "\(Formatting.fixed(days, digits: 1)) days"
        }
    }

    /// One bar per segment, its length the segment's size against the largest, live bytes
    /// first, then dead.
    private func segmentBars(_ segments: [SegmentStats]) -> HTML {
        let width = 640
        let rowHeight = 22
        let largest = max(1, segments.map(\.fileBytes).max() ?? 1)
        let label = 150
        let rows = HTML.join(
            segments.enumerated().map { i, segment -> HTML in
                let total = Int(Int64(width - label) * segment.fileBytes / largest)
                let live =
                    segment.fileBytes == 0
                    ? 0
                    : min(total, Int(Int64(total) * max(0, segment.liveBytes) / segment.fileBytes))
                let y = i * rowHeight
                return """
                    <g transform="translate(0,\(y))"><title>\(segment.name): \(Formatting.byteCount(segment.liveBytes)) live, \
                    \(Formatting.byteCount(segment.deadBytes)) dead</title>\
                    <text class="seg-label" x="0" y="15">\(segment.name.prefix(16))\(segment.isActive ? " *" : "")</text>\
                    <rect class="live" x="\(label)" y="3" width="\(live)" height="16"></rect>\
                    <rect class="dead" x="\(label + live)" y="3" width="\(max(0, total - live))" height="16"></rect></g>
                    """
            })
        return """
            <svg class="segments" role="img" aria-labelledby="bars-title" width="\(width)" \
            height="\(max(1, segments.count) * rowHeight + 4)" viewBox="0 0 \(width) \(max(1, segments.count) * rowHeight + 4)">\
            <title id="bars-title">Live (dark) and dead (light) bytes of each segment</title>\(rows)</svg>
            <p class="legend"><span class="swatch live"></span> live <span class="swatch dead"></span> dead\
            \(segments.contains(where: \.isActive) ? "; * marks the segment being written" : "").</p>
            """
    }

    private func segmentTable(_ segments: [SegmentStats]) -> HTML {
        let rows = HTML.join(
            segments.map { segment -> HTML in
                """
                <tr><th scope="row"><code>\(segment.name)</code>\(segment.isActive ? " (active)" : "")</th>\
                <td class="num">\(segment.fileBytes)</td><td class="num">\(segment.liveBytes)</td>\
                <td class="num">\(segment.deadBytes)</td></tr>
                """
            })
        return """
            <table class="grid"><caption>Segments in replay order (bytes)</caption>
            <thead><tr><th scope="col">Segment</th><th scope="col">File</th><th scope="col">Live</th>\
            <th scope="col">Dead</th></tr></thead><tbody>\(rows)</tbody></table>
            """
    }

    /// The caches and leftovers of the store's directory, with their sizes.
    private func fileTable(_ files: StoreFiles) -> HTML {
        var rows: [(String, String, Int64?)] = []
        let hintBytes = files.hints.reduce(Int64(0)) { $0 + (fileSize(files.path(of: $1)) ?? 0) }
        rows.append(("hint files", Formatting.count(files.hints.count, "file"), hintBytes))
        rows.append(
            (
                StoreFiles.keyDirectoryName,
                files.hasKeyDirectory ? "the index as the last clean close left it" : "absent",
                files.hasKeyDirectory ? fileSize(files.path(of: StoreFiles.keyDirectoryName)) : nil
            ))
        if files.sidecarFiles.isEmpty { rows.append(("index sidecar", "absent", nil)) }
        for sidecar in files.sidecarFiles {
            rows.append((sidecar, "index sidecar", fileSize(files.path(of: sidecar))))
        }
        for name in files.temporaryFiles {
            rows.append((name, "left by an interrupted write", fileSize(files.path(of: name))))
        }
        for name in files.cutFiles {
            rows.append((name, "bytes recovery cut and kept", fileSize(files.path(of: name))))
        }
        for name in files.damagedFiles {
            rows.append((name, "moved aside by salvage", fileSize(files.path(of: name))))
        }
        let body = HTML.join(
            rows.map { name, what, bytes -> HTML in
                "<tr><th scope=\"row\"><code>\(name)</code></th><td>\(what)</td><td class=\"num\">\(bytes.map { Formatting.byteCount($0) } ?? "—")</td></tr>"
            })
        return """
            <table class="grid"><caption>Derived files (rebuilt when missing) and leftovers</caption>
            <thead><tr><th scope="col">File</th><th scope="col">What</th><th scope="col">Size</th></tr></thead>
            <tbody>\(body)</tbody></table>
            """
    }

    /// The size of the file at `path` (a name from the directory's own listing), `nil` if it
    /// is gone.
    private func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }
}
