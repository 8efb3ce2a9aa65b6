/**
 * The sandbox inbox (like Mailpit's): which stand-ins serve and where, then what each received
 * from our code and the callbacks it sent, newest first, each with headers (secrets masked)
 * and body. Plain server-rendered HTML; reload the page to see new traffic. A pure function of
 * what the sandbox hands it (InboxView), so it knows nothing of the Sandbox class.
 */
import type { Captured } from "./capture.ts";
import type { StandInEntry } from "./registry.ts";

/** What the inbox page shows. */
export interface InboxView {
  /** Every stand-in the sandbox serves. */
  entries: StandInEntry[];
  /** The captures to list (of every stand-in, or of `provider`), newest first. */
  captures: Captured[];
  /** The stand-in the page is filtered on, if any. */
  provider: string | null;
  /** The page's query: stand-in panels read their own parameters from it (e.g. ?mail=<id>). */
  query?: URLSearchParams;
  /** The model calls viewer (providers/model_viewer.ts), when the page shows model stand-ins. */
  models?: string;
}

/** A stand-in with a view of its own on the page (the Resend stand-in's mail viewer). */
interface WithPanel {
  panel(query: URLSearchParams): string;
}

function hasPanel(s: unknown): s is WithPanel {
  return typeof (s as Partial<WithPanel>).panel === "function";
}

/** Older traffic stays available from /_captures. */
const SHOWN = 200;

function esc(v: unknown): string {
  return String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function pretty(body: unknown): string {
  if (body === null || body === undefined) return "(empty)";
  return typeof body === "string" ? body : JSON.stringify(body, null, 2);
}

function statusClass(status: number | undefined): string {
  if (status === undefined) return "pending";
  return status >= 400 ? "bad" : "ok";
}

function entryHtml(c: Captured): string {
  const arrow = c.direction === "in" ? "&rarr; stand-in" : "&larr; callback";
  const target = c.direction === "out"
    ? c.url
    : c.path + (Object.keys(c.query).length ? `?${new URLSearchParams(c.query)}` : "");
  const headers = Object.entries(c.headers).map(([k, v]) => `${esc(k)}: ${esc(v)}`).join("\n");
  return `<details>
  <summary><span class="time">${esc(c.time)}</span> <b>${
    esc(c.provider)
  }</b> <span class="dir">${arrow}</span>
    <code>${esc(c.method)} ${esc(target)}</code>
    <span class="${statusClass(c.status)}">${esc(c.status ?? "…")}</span>${
    c.fault ? " <i>(injected)</i>" : ""
  }${c.rule ? ` <span class="rule">answered by the sandbox: ${esc(c.rule)}</span>` : ""}
    ${c.durationMs !== undefined ? `<span class="ms">${c.durationMs} ms</span>` : ""}</summary>
  <h4>Headers</h4><pre>${headers}</pre>
  <h4>Body</h4><pre>${esc(pretty(c.body))}</pre>
</details>`;
}

export function renderInbox({ entries, captures, provider, query, models }: InboxView): string {
  const panels = entries
    .filter((e) => (!provider || e.def.name === provider) && hasPanel(e.standIn))
    .map((e) => (e.standIn as unknown as WithPanel).panel(query ?? new URLSearchParams()))
    .join("\n");
  const rows = entries.map((e) => {
    const mode = e.sandboxed
      ? `code uses it (<code>${esc(e.def.baseUrlEnv)}</code>)`
      : `idle: a real <code>${esc(e.def.keyEnv)}</code> is configured`;
    return `<tr><td><a href="/?provider=${encodeURIComponent(e.def.name)}">${esc(e.def.name)}</a></td>
      <td>${esc(e.def.title)}</td><td><code>${esc(e.standIn.baseUrl)}</code></td><td>${mode}</td>
      <td>${e.standIn.captures.all().length}</td></tr>`;
  }).join("\n");
  const list = captures.length
    ? captures.slice(0, SHOWN).map(entryHtml).join("\n")
    : "<p>Nothing captured yet.</p>";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Provider sandbox inbox</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 2rem; color: #222; }
  table { border-collapse: collapse; margin-bottom: 1.5rem; }
  td, th { border: 1px solid #ddd; padding: .3rem .6rem; text-align: left; }
  details { border: 1px solid #ddd; border-radius: 4px; margin: .4rem 0; padding: .4rem .6rem; }
  summary { cursor: pointer; }
  pre { background: #f6f6f6; padding: .5rem; overflow-x: auto; white-space: pre-wrap; }
  .time, .ms, .dir { color: #777; } .ok { color: #080; } .bad { color: #b00; } .pending { color: #a60; }
  h4 { margin: .6rem 0 .2rem; }
  .rule { color: #559; }
</style></head>
<body>
<h1>Provider sandbox</h1>
<table><tr><th>stand-in</th><th>API</th><th>base URL</th><th>in use</th><th>captured</th></tr>
${rows}</table>
<p>${provider ? `Showing ${esc(provider)} only. <a href="/">Show all</a>.` : "Newest first."}
  <a href="/_captures${provider ? `?provider=${encodeURIComponent(provider)}` : ""}">JSON</a>.</p>
${panels}
${models ?? ""}
<form method="post" action="/_clear"><button>Clear captures</button></form>
${list}
</body></html>`;
}
