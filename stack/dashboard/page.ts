/**
 * The dashboard's one page: navigation, a section per page, and client.js, with the grid
 * (Tabulator, tabulator-tables) and the SQL editor (CodeMirror 5 with its SQL mode) inlined from
 * the npm packages in Deno's cache, as packages/shared/http/docs.ts inlines Swagger UI: the page
 * loads nothing from a CDN or any other origin. The per-process token is put in by the server
 * (`__DASHBOARD_TOKEN__`) on every answer.
 */
import tabulatorJs from "tabulator-tables/dist/js/tabulator.min.js" with { type: "text" };
import tabulatorCss from "tabulator-tables/dist/css/tabulator_simple.min.css" with { type: "text" };
import codemirrorJs from "codemirror5/lib/codemirror.js" with { type: "text" };
import codemirrorCss from "codemirror5/lib/codemirror.css" with { type: "text" };
import sqlModeJs from "codemirror5/mode/sql/sql.js" with { type: "text" };
import clientJs from "./client.js" with { type: "text" };

/** Text that is safe inside a <script> element. */
const scriptText = (s: string) => s.replace(/<\/script/gi, "<\\/script");
const scriptJson = (v: unknown) =>
  JSON.stringify(v).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");

export const PAGES = [
  ["tables", "Tables"],
  ["sql", "SQL"],
  ["auth", "Auth users"],
  ["storage", "Storage"],
  ["functions", "Functions"],
  ["cron", "Cron & queues"],
  ["realtime", "Realtime"],
  ["ops", "Operations"],
  ["sandbox", "Sandbox"],
] as const;

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,sans-serif;display:flex;min-height:100vh;color:#1c1c1c}
nav{width:11rem;background:#1f2328;color:#eee;padding:1rem .5rem;flex:none}
nav h1{font-size:15px;margin:0 .5rem 1rem}nav a{display:block;color:#ddd;text-decoration:none;padding:.35rem .5rem;border-radius:4px}
nav a.on{background:#3ecf8e;color:#111}main{flex:1;padding:1rem 1.25rem;min-width:0}
section{display:none}section.on{display:block}h2{margin:.2rem 0 .8rem;font-size:18px}h3{font-size:14px;margin:1rem 0 .4rem}
.bar{display:flex;gap:.4rem;flex-wrap:wrap;align-items:center;margin:.4rem 0}
input,select,textarea,button{font:inherit}input,select,textarea{border:1px solid #bbb;border-radius:4px;padding:.25rem .4rem}
button{border:1px solid #888;background:#f6f6f6;border-radius:4px;padding:.25rem .6rem;cursor:pointer}
button.danger{border-color:#c33;color:#a11}.cols{display:grid;grid-template-columns:minmax(16rem,1fr) 3fr;gap:1rem}
#status{position:fixed;right:1rem;bottom:1rem;max-width:40rem;padding:.5rem .8rem;border-radius:6px;background:#e8f7ef;border:1px solid #3ecf8e;display:none;white-space:pre-wrap}
#status.err{background:#fdecec;border-color:#c33}pre{background:#f4f4f4;padding:.5rem;overflow:auto;max-height:20rem;margin:.3rem 0}
.err{color:#a11}.muted{color:#666}.kv span{margin-right:1.2rem}#preview img{max-width:100%;max-height:24rem}
#preview iframe{width:100%;height:24rem;border:1px solid #ccc}.CodeMirror{border:1px solid #bbb;height:12rem}
textarea{width:100%}.tabulator{font-size:13px}
.bar-out{position:relative;background:#eee;border-radius:3px;height:1.2em;min-width:8rem}
.bar-in{position:absolute;inset:0 auto 0 0;background:#3ecf8e;border-radius:3px}
.bar-out span{position:relative;padding-left:.3rem;font-size:12px}
.st-failed{color:#a11;font-weight:600}.st-completed{color:#17743f}.st-skipped{color:#777}`;

/** The page, with `__DASHBOARD_TOKEN__` where the server puts its token. */
export function renderPage(cfg: { platformUrl: string; sandboxUrl: string | null }): string {
  const nav = PAGES.map(([id, label]) => `<a href="#${id}" id="nav-${id}">${label}</a>`).join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Local dashboard</title>` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<style>${tabulatorCss}</style><style>${codemirrorCss}</style><style>${STYLE}</style></head><body>` +
    `<nav><h1>Local dashboard</h1>${nav}</nav><main>${SECTIONS}</main><div id="status"></div>` +
    `<script type="application/json" id="cfg">${
      scriptJson({ ...cfg, token: "__DASHBOARD_TOKEN__" })
    }</script>` +
    `<script>${scriptText(tabulatorJs)}</script><script>${scriptText(codemirrorJs)}</script>` +
    `<script>${scriptText(sqlModeJs)}</script><script>${scriptText(clientJs)}</script></body></html>`;
}

const SECTIONS = `
<section id="page-tables"><h2>Tables</h2><div class="cols"><div>
<div class="bar"><label>Schema <select id="schema"></select></label></div><div id="tables-list"></div></div><div>
<h3 id="table-title" class="muted">Pick a table</h3><div id="table-note" class="muted"></div>
<div class="bar"><button id="row-insert">Insert row</button><button id="row-delete" class="danger">Delete selected row</button>
<button id="rows-reload">Reload</button><span class="muted">Double-click a cell to edit it; header fields filter.</span></div>
<div id="insert-box" style="display:none"><textarea id="insert-json" rows="6"></textarea>
<div class="bar"><button id="insert-go">Insert</button><button id="insert-cancel">Cancel</button></div></div>
<div id="rows"></div><h3>RLS policies</h3><div id="policies"></div></div></div></section>

<section id="page-sql"><h2>SQL</h2><textarea id="sql-text">select id, name, owner_id from public.workspaces limit 20;</textarea>
<div class="bar"><button id="sql-run">Run (Ctrl+Enter)</button><span id="sql-info" class="muted"></span></div>
<pre id="sql-error" class="err" style="display:none"></pre><div id="sql-results"></div><h3>History</h3><div id="sql-history"></div></section>

<section id="page-auth"><h2>Auth users</h2>
<div class="bar"><input id="user-search" placeholder="search email or name"><button id="user-search-go">Search</button></div>
<div class="bar"><input id="user-email" placeholder="email"><input id="user-password" placeholder="password (create)">
<button id="user-create">Create user</button><button id="user-invite">Invite</button></div>
<div id="users"></div>
<div class="bar"><span>Selected: <b id="user-selected">none</b></span><button id="user-ban">Ban 24h</button><button id="user-unban">Unban</button>
<button id="user-magic">Magic link</button><button id="user-delete" class="danger">Delete</button></div>
<div id="user-link" class="muted"></div><h3>Workspaces, platform role, credits</h3><div id="user-details" class="kv muted">Select a user.</div>
<div id="user-workspaces"></div></section>

<section id="page-storage"><h2>Storage</h2><div class="cols"><div><h3>Buckets</h3><div id="buckets"></div></div><div>
<div class="bar"><button id="folder-up">Up</button><b id="storage-path" class="muted">Pick a bucket</b></div>
<div class="bar"><input type="file" id="upload-file"><button id="upload-go">Upload here</button>
<button id="object-delete" class="danger">Delete selected</button></div><div id="objects"></div>
<div class="bar"><input id="signed-url" readonly size="60" placeholder="signed URL of the selected file"><button id="copy-url">Copy signed URL</button></div>
<div id="preview"></div></div></div></section>

<section id="page-functions"><h2>Functions</h2><div id="functions"></div><h3 id="fn-title" class="muted">Pick a function</h3>
<div class="bar"><select id="fn-method"><option>POST</option><option>GET</option></select><input id="fn-path" placeholder="/sub/path" size="20">
<input id="fn-body" placeholder='JSON body' size="50" value="{}"><button id="fn-invoke">Invoke (service role)</button></div>
<pre id="fn-response" style="display:none"></pre><h3>Recent invocations</h3><div id="invocations"></div>
<h3 id="request-log-title">Log lines of the selected request</h3>
<pre id="request-log" class="muted">Select an invocation (of a function or of the AI backend): the platform's lines and what the code printed.</pre>
<h2>AI backend</h2><div class="muted">Its own port (not through the gateway); every request recorded here, in memory.</div>
<h3>Routes</h3><div id="ai-routes"></div><h3 id="ai-requests-title">AI backend requests</h3><div id="ai-requests"></div></section>

<section id="page-cron"><h2>Cron jobs</h2><div class="bar"><button id="cron-reload">Reload</button></div><div id="cron-jobs"></div><h3>Run history</h3>
<div class="muted">A run whose command returned a pg_net request id (net.http_post, call_edge_function) shows that request's response.</div>
<div id="cron-runs"></div><h3>pg_net responses</h3><div id="net-responses"></div><h2>Queues (pgmq)</h2><div id="queues"></div>
<h3 id="queue-title" class="muted">Pick a queue</h3><div class="bar"><input id="queue-msg" size="50" value='{"hello":"dashboard"}'>
<button id="queue-send">Send message</button></div><div id="queue-messages"></div></section>

<section id="page-realtime"><h2>Realtime inspector</h2>
<div class="bar"><input id="rt-channel" value="room-1"><input id="rt-table" placeholder="table (all published)">
<button id="rt-join">Join</button><button id="rt-leave">Leave</button><span id="rt-joined" class="muted"></span></div>
<div class="bar"><input id="rt-event" value="ping"><input id="rt-payload" size="40" value='{"from":"dashboard"}'>
<button id="rt-send">Broadcast</button><button id="rt-track">Track presence</button></div><div id="rt-events"></div></section>

<section id="page-ops"><h2>Operations</h2>
<h3>Price audit (30 days)</h3><div id="ops-audit" class="kv"></div>
<h3>Credit ledger per user and action</h3><div class="bar"><input id="grant-user" size="38" placeholder="user id">
<input id="grant-amount" size="6" value="10"><button id="grant-go">Grant credits</button></div><div id="ops-ledger"></div>
<h3>AI jobs (refreshed every 2 s)</h3><div id="ops-jobs"></div><h3>Flow runs</h3>
<div class="muted">Click a run for its node results.</div><div id="ops-flows"></div>
<h3 id="flow-nodes-title" class="muted">Node results</h3><div id="flow-nodes"></div>
<h3>Messaging bulks</h3><div id="ops-bulks"></div></section>

<section id="page-sandbox"><h2>Provider sandbox</h2><div class="bar" id="sandbox-links"></div>
<h3>Captures (newest first)</h3><div id="captures"></div></section>`;
