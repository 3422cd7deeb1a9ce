/// The studio's style sheet, served as `/assets/studio.css`: system fonts only (nothing to
/// fetch), visible focus, a distinct look for views of the past, and colours that keep text
/// contrast at WCAG AA.
enum StudioStyle {
    static let source = """
        :root { --ink: #1d2733; --muted: #52606d; --line: #cbd2d9; --paper: #ffffff;
          --band: #f0f4f8; --accent: #1f5f99; --good: #1e6b34; --bad: #a61b1b;
          --past: #7a4d00; --past-band: #fff4dc; --live: #2f6f4e; --dead: #d9a6a6; }
        * { box-sizing: border-box; }
        html { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
          color: var(--ink); background: var(--paper); }
        body { margin: 0; }
        a { color: var(--accent); }
        a:focus-visible, button:focus-visible, input:focus-visible, main:focus-visible {
          outline: 3px solid #f0b429; outline-offset: 2px; }
        code, kbd, .path { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
          font-size: 0.92em; }
        kbd { border: 1px solid var(--line); border-radius: 3px; padding: 0 4px; }
        .skip { position: absolute; left: -9999px; }
        .skip:focus { left: 8px; top: 8px; background: var(--paper); padding: 6px; z-index: 10; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden;
          clip: rect(0 0 0 0); white-space: nowrap; }
        header.top { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 24px;
          padding: 8px 20px; background: var(--band); border-bottom: 1px solid var(--line); }
        header.top p { margin: 0; }
        .brand a { font-weight: 700; text-decoration: none; color: var(--ink); }
        .store { color: var(--muted); }
        nav ul { list-style: none; display: flex; gap: 4px; margin: 0; padding: 0; }
        nav a { display: inline-block; padding: 4px 10px; border-radius: 4px; text-decoration: none; }
        nav a[aria-current="page"] { background: var(--accent); color: #fff; }
        main { padding: 8px 20px 24px; max-width: 1400px; }
        h1 { font-size: 1.6em; margin: 12px 0; }
        h2 { font-size: 1.2em; margin: 20px 0 8px; }
        footer { padding: 8px 20px; color: var(--muted); border-top: 1px solid var(--line); }
        .live-status { display: none; margin: 0 20px; padding: 6px 10px; border-radius: 4px;
          background: #e3f8e9; }
        .live-status.shown { display: block; }
        .live-status.error { display: block; background: #fde8e8; color: var(--bad); }
        .live-status button { margin-left: 8px; }
        .table-wrap { overflow-x: auto; }
        table.grid { border-collapse: collapse; margin: 8px 0; }
        table.grid caption { text-align: left; color: var(--muted); padding: 4px 0; }
        table.grid th, table.grid td { border: 1px solid var(--line); padding: 4px 8px;
          text-align: left; vertical-align: top; }
        table.grid thead th { background: var(--band); white-space: nowrap; }
        table.grid tbody tr:nth-child(even) { background: #fafbfc; }
        td.num { text-align: right; font-variant-numeric: tabular-nums; }
        .type { color: var(--muted); font-size: 0.85em; font-weight: normal; }
        .null, .none, .empty { color: var(--muted); font-style: italic; }
        .more { color: var(--muted); }
        .data { color: var(--muted); }
        .good { color: var(--good); }
        .bad, .error { color: var(--bad); }
        .note { color: var(--muted); }
        .filter { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 8px 0; }
        .filter input[type="search"] { min-width: 28em; padding: 5px 8px; font: inherit;
          border: 1px solid #7b8794; border-radius: 4px; }
        button { font: inherit; padding: 4px 12px; border-radius: 4px; border: 1px solid var(--accent);
          background: var(--accent); color: #fff; cursor: pointer; }
        form.danger button { background: var(--bad); border-color: var(--bad); }
        form.edit { display: flex; gap: 6px; align-items: center; margin: 0; }
        .pager { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 8px 0; }
        .pager .disabled { color: var(--muted); }
        .plan code { background: var(--band); padding: 2px 6px; border-radius: 3px; }
        .past-banner { margin: 8px 0; padding: 10px 14px; border-left: 6px solid var(--past);
          background: repeating-linear-gradient(-45deg, var(--past-band), var(--past-band) 12px,
          #ffeccc 12px, #ffeccc 24px); color: #4a2f00; }
        body.past main h1::after { content: " (the past)"; color: var(--past); font-size: 0.7em; }
        dl.facts { display: grid; grid-template-columns: max-content auto; gap: 4px 16px; }
        dl.facts dt { color: var(--muted); }
        dl.facts dd { margin: 0; }
        ol.timeline, ol.object-history, ol.changes { list-style: none; padding: 0; }
        ol.timeline > li, ol.object-history > li, ol.changes > li { border-left: 3px solid var(--line);
          padding: 4px 0 8px 14px; margin-bottom: 6px; }
        .save-title, .change, ol.object-history h3 { display: inline; font-size: 1.05em; }
        ol.timeline p.counts { margin: 2px 0 0; }
        .counts .ins { color: var(--good); }
        .counts .del { color: var(--bad); }
        svg.bar { margin-left: 10px; vertical-align: middle; }
        svg.bar rect { fill: var(--accent); }
        svg.segments rect.live, .swatch.live { fill: var(--live); background: var(--live); }
        svg.segments rect.dead, .swatch.dead { fill: var(--dead); background: var(--dead); }
        svg.segments text { font: 12px ui-monospace, monospace; fill: var(--ink); }
        .swatch { display: inline-block; width: 12px; height: 12px; vertical-align: middle; }
        table.diff tr.changed td.after { background: #e3f8e9; }
        table.diff tr.changed td.before { background: #fdf0f0; }
        figure.diagram { margin: 8px 0; overflow-x: auto; border: 1px solid var(--line);
          border-radius: 6px; padding: 6px; }
        .crumbs { margin: 8px 0 0; color: var(--muted); }
        @media (prefers-reduced-motion: reduce) { * { transition: none !important; } }
        """
}

/// The files the pages load, kept in the binary: never read from disk.
enum StudioAssets {
    struct Asset {
        var contentType: String
        var bytes: [UInt8]
    }

    /// The asset called `name` (`studio.css`, `studio.js`), or `nil`.
    static func named(_ name: String) -> Asset? {
        switch name {
        case "studio.css": return Asset(contentType: "text/css; charset=utf-8", bytes: css)
        case "studio.js": return Asset(contentType: "text/javascript; charset=utf-8", bytes: js)
        default: return nil
        }
    }

    private static let css = Array(StudioStyle.source.utf8)
    private static let js = Array(StudioScript.source.utf8)
}
