/// The page's one stylesheet, served from the binary (docs/web.md, "The page"): no external assets, light and dark
/// by the system's `prefers-color-scheme`, one column that fits a phone's screen.
enum PageStyle {
    static let css = """
        :root { color-scheme: light dark; --bg: #f5f6f8; --card: #ffffff; --text: #1d2330; --muted: #5d6677;
          --line: #e2e5ea; --accent: #2f6fed; --accent-text: #ffffff; --good: #1f9d55; --good-text: #ffffff; --bad: #c93c37; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #14171c; --card: #1e232b; --text: #e8ebf0; --muted: #9aa3b2; --line: #2c333d;
            --accent: #5b8cff; --accent-text: #0d1017; --good: #3ecf7a; --good-text: #0d1017; --bad: #ff6b63; }
        }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--text);
          font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
        header { background: var(--card); border-bottom: 1px solid var(--line); padding: 1rem 1.25rem; }
        .top { max-width: 42rem; margin: 0 auto; }
        .brand { font-weight: 700; letter-spacing: 0.04em; color: var(--accent); margin-bottom: 0.5rem; }
        .me { display: flex; align-items: center; gap: 0.75rem; }
        .dir, .detail, .empty { color: var(--muted); font-size: 0.9rem; }
        .id { color: var(--muted); font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.85rem; }
        main { max-width: 44rem; margin: 0 auto; padding: 1rem; }
        h2 { font-size: 0.95rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted);
          margin: 1.5rem 0 0.5rem; }
        ul { list-style: none; margin: 0; padding: 0; background: var(--card); border: 1px solid var(--line);
          border-radius: 12px; overflow: hidden; }
        li { display: flex; align-items: center; gap: 0.75rem; padding: 0.75rem 1rem;
          border-top: 1px solid var(--line); }
        li:first-child { border-top: none; }
        li.question { display: block; }
        li.question p { margin: 0 0 0.25rem; }
        .about { flex: 1; min-width: 0; overflow-wrap: anywhere; }
        .name { font-weight: 600; }
        .badge { display: inline-block; font-size: 0.75rem; padding: 0.05rem 0.45rem; border-radius: 999px;
          border: 1px solid var(--line); color: var(--muted); vertical-align: 0.1em; }
        .device.away .avatar { opacity: 0.45; }
        .avatar { flex: none; width: 2.5rem; height: 2.5rem; border-radius: 50%; display: inline-flex;
          align-items: center; justify-content: center; font-weight: 700; color: #fff; background: #6b7280; }
        .hue-0 { background: #d9480f; } .hue-1 { background: #c2255c; } .hue-2 { background: #9c36b5; }
        .hue-3 { background: #6741d9; } .hue-4 { background: #3b5bdb; } .hue-5 { background: #1971c2; }
        .hue-6 { background: #0c8599; } .hue-7 { background: #099268; } .hue-8 { background: #2f9e44; }
        .hue-9 { background: #66a80f; } .hue-10 { background: #e67700; } .hue-11 { background: #868e96; }
        .actions { display: flex; gap: 0.5rem; margin-top: 0.5rem; }
        form { margin: 0; }
        button { font: inherit; border-radius: 8px; padding: 0.45rem 1rem; border: 1px solid var(--line);
          background: var(--card); color: var(--text); cursor: pointer; min-height: 2.5rem; }
        button.accept { background: var(--good); border-color: var(--good); color: var(--good-text); }
        button.decline { color: var(--bad); }
        button:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 1rem;
          display: flex; flex-direction: column; gap: 0.75rem; }
        .card[hidden] { display: none; }
        .qr { display: block; width: 12rem; height: 12rem; image-rendering: pixelated; background: #fff; }
        #phone .id, #pairing .link { word-break: break-all; }
        select, input[type=file] { font: inherit; color: inherit; max-width: 100%; }
        select { margin-left: 0.5rem; padding: 0.35rem; border-radius: 8px; border: 1px solid var(--line);
          background: var(--bg); }
        .drop { border: 2px dashed var(--line); border-radius: 10px; padding: 1.25rem; text-align: center;
          color: var(--muted); }
        .drop.over { border-color: var(--accent); color: var(--text); }
        .drop input { display: block; margin: 0.5rem auto 0; }
        #sends { margin-top: 0.75rem; }
        progress { width: 100%; height: 0.5rem; accent-color: var(--accent); }
        .thumb { width: 2.5rem; height: 2.5rem; object-fit: cover; border-radius: 6px; flex: none; }
        .sending.done .detail { color: var(--good); }
        .sending.failed .detail { color: var(--bad); }
        button:disabled { opacity: 0.5; cursor: default; }
        .said { margin: 0.15rem 0; white-space: pre-wrap; overflow-wrap: anywhere; }
        .empty { background: var(--card); border: 1px dashed var(--line); border-radius: 12px; padding: 1rem; }
        #chat li.mine { background: color-mix(in srgb, var(--accent) 8%, var(--card)); }
        #chat li.mine .name { color: var(--accent); }
        .say { display: flex; gap: 0.5rem; margin: 0.75rem 0 0; }
        .say input { flex: 1; min-width: 0; font: inherit; color: inherit; padding: 0.45rem 0.75rem;
          border-radius: 8px; border: 1px solid var(--line); background: var(--card); }
        """
}
