/**
 * The "Model calls" viewer on the sandbox page (GET / and its own page GET /_models), like the mail
 * viewer: the calls the model stand-ins answered, newest first (provider, model, time, tokens, the
 * rule that answered), the selected one (?call=<id>) opened: system prompt, messages, the tools
 * offered and the forced one, the reply (text and tool calls), tokens and a cost estimate; then the
 * replies queued for each provider and a form that queues one (POST /_models/script), so anyone can
 * walk a frontend through any path (a tool call, malformed output, an error, a slow answer).
 * Everything shown is escaped.
 */
import type { BrainBlock } from "./model_brain.ts";
import { type ModelCall, priced } from "./model_calls.ts";
import type { WireReply } from "./model_script.ts";

export interface ModelViewerView {
  /** Newest first. */
  calls: ModelCall[];
  /** The opened call's id (?call=<id>). */
  selected: number | null;
  /** Queued replies per provider (GET /_models/script). */
  queued: Record<string, (WireReply & { model: string | null })[]>;
}

const SHOWN = 200;

function esc(v: unknown): string {
  return String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const json = (v: unknown) => JSON.stringify(v, null, 2);

function usd(n: number): string {
  return n === 0 ? "$0" : n < 0.0001 ? `$${n.toExponential(2)}` : `$${n.toFixed(6).replace(/0+$/, "")}`;
}

function outcome(c: ModelCall): string {
  if (c.error) return `<span class="bad">${esc(c.error.status)}</span>`;
  if (c.kind === "embeddings") {
    return `${esc(c.embeddings?.inputs)} &times; ${esc(c.embeddings?.dimensions)}d`;
  }
  return esc(c.finish ?? "");
}

function row(c: ModelCall, selected: boolean): string {
  return `<tr${selected ? ' class="sel"' : ""}><td><a href="/_models?call=${c.id}">${esc(c.time)}</a></td>
    <td>${esc(c.provider)}</td><td>${esc(c.model)}</td><td>${esc(c.kind)}${c.stream ? " (stream)" : ""}</td>
    <td>${esc(c.inputTokens)} / ${esc(c.outputTokens)}</td><td><code>${esc(c.rule)}</code></td>
    <td>${outcome(c)}</td></tr>`;
}

function block(b: BrainBlock): string {
  switch (b.type) {
    case "text":
      return `<pre>${esc(b.text)}</pre>`;
    case "image":
      return "<p><i>[image]</i></p>";
    case "document":
      return b.text ? `<p><i>[document]</i></p><pre>${esc(b.text)}</pre>` : "<p><i>[document]</i></p>";
    case "tool_use":
      return `<p>tool call <b>${esc(b.name)}</b> <code>${esc(b.id)}</code></p><pre>${
        esc(json(b.input))
      }</pre>`;
    case "tool_result":
      return `<p>tool result for <code>${esc(b.tool_use_id)}</code>${b.is_error ? " (error)" : ""}</p><pre>${
        esc(b.content)
      }</pre>`;
  }
}

function opened(c: ModelCall): string {
  const p = priced(c);
  const cost = p.cost
    ? `${usd(p.cost.usd)} (estimate at ${
      esc(p.cost.family)
    } list prices: $${p.cost.perMillion.input} in / $${p.cost.perMillion.output} out per million tokens)`
    : "no estimate (no price known for this model)";
  const facts = [
    ["Provider", c.provider],
    ["Model", c.model],
    ["Time", c.time],
    ["Kind", `${c.kind}${c.stream ? ", streamed" : ""}`],
    ["Answered by", `the sandbox: ${c.rule}`],
    ["Outcome", c.error ? `error ${c.error.status}: ${c.error.message}` : c.finish ?? "-"],
    ["Tokens", `${c.inputTokens} in, ${c.outputTokens} out`],
  ].map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join("") +
    `<tr><th>Cost</th><td>${cost}</td></tr>`;
  if (c.kind === "embeddings") {
    const inputs = c.messages.map((m) => m.blocks.map(block).join("")).join("");
    return `<section class="call" id="call-${c.id}"><table class="facts">${facts}</table>
  <h3>Inputs (${esc(c.embeddings?.inputs)}, ${
      esc(c.embeddings?.dimensions)
    } dimensions each)</h3>${inputs}</section>`;
  }
  const messages = c.messages.length
    ? c.messages.map((m) => `<div class="msg"><h4>${esc(m.role)}</h4>${m.blocks.map(block).join("")}</div>`)
      .join("")
    : "<p>(none)</p>";
  const tools = c.tools.length
    ? `<table><tr><th>tool</th><th>description</th><th>input schema</th></tr>${
      c.tools.map((t) =>
        `<tr${t.name === c.forcedTool ? ' class="sel"' : ""}><td><b>${esc(t.name)}</b>${
          t.name === c.forcedTool ? " (forced)" : ""
        }</td><td>${esc(t.description)}</td><td><pre>${esc(json(t.input_schema))}</pre></td></tr>`
      ).join("")
    }</table>`
    : "<p>No tools offered.</p>";
  const reply = c.reply
    ? (c.reply.text !== undefined ? `<h4>Text</h4><pre>${esc(c.reply.text)}</pre>` : "") +
      (c.reply.toolUse ?? []).map((t) => `<h4>Tool call ${esc(t.name)}</h4><pre>${esc(json(t.input))}</pre>`)
        .join("")
    : `<p class="bad">${esc(c.error ? `Error ${c.error.status}: ${c.error.message}` : "(no reply)")}</p>`;
  return `<section class="call" id="call-${c.id}"><table class="facts">${facts}</table>
  <h3>System prompt</h3><pre>${c.system ? esc(c.system) : "(none)"}</pre>
  <h3>Messages</h3>${messages}
  <h3>Tools</h3><p>tool_choice: <code>${esc(c.toolChoice)}</code>${
    c.forcedTool ? `, forced tool: <b>${esc(c.forcedTool)}</b>` : ""
  }</p>${tools}
  <h3>Reply</h3>${reply}</section>`;
}

function scriptForm(providers: string[]): string {
  return `<form class="script" method="post" action="/_models/script">
  <h3>Queue the next reply</h3>
  <label>provider <select name="provider">${
    providers.map((p) => `<option>${esc(p)}</option>`).join("")
  }</select></label>
  <label>model (empty: any) <input name="model" placeholder="e.g. claude-sonnet-4-6"></label>
  <label>reply <select name="kind">
    <option value="text">text</option><option value="tool_call">tool call</option>
    <option value="malformed">malformed tool input</option><option value="malformed_text">text instead of the forced tool</option>
    <option value="error">error</option><option value="latency">only a delay (then the sandbox model)</option>
  </select></label>
  <label>text <textarea name="text" rows="2"></textarea></label>
  <label>tool name <input name="tool_name"></label>
  <label>tool input (JSON) <textarea name="tool_input" rows="2">{}</textarea></label>
  <label>error status <input name="status" type="number" min="400" max="599" value="529"></label>
  <label>error message <input name="message"></label>
  <label>latency (ms) <input name="latency_ms" type="number" min="0"></label>
  <button>Queue</button></form>`;
}

/** The viewer as an HTML fragment for the sandbox page. */
export function renderModelViewer(view: ModelViewerView): string {
  const selected = view.selected === null ? undefined : view.calls.find((c) => c.id === view.selected);
  const rows = view.calls.slice(0, SHOWN).map((c) => row(c, c.id === selected?.id)).join("\n");
  const queued = Object.entries(view.queued).map(([provider, replies]) =>
    `<p><b>${esc(provider)}</b>: ${
      replies.length ? `${replies.length} queued</p><pre>${esc(json(replies))}</pre>` : "nothing queued</p>"
    }`
  ).join("");
  return `<section class="modelviewer" id="model-calls"><style>
  .modelviewer tr.sel { background: #eef5ff; }
  .modelviewer table.facts th { text-align: right; color: #555; }
  .modelviewer .msg { border-left: 3px solid #ccd; padding-left: .6rem; margin: .4rem 0; }
  .modelviewer form.script label { display: block; margin: .2rem 0; }
</style>
<h2>Model calls (answered by the sandbox, never a real model)</h2>
<p><a href="/_models">Model calls page</a> &middot; <a href="/_models/calls">JSON</a> &middot;
  <a href="/_models/script">queued replies (JSON)</a></p>
${
    view.calls.length
      ? `<table><tr><th>time</th><th>provider</th><th>model</th><th>kind</th><th>tokens in / out</th><th>answered by</th><th>outcome</th></tr>${rows}</table>`
      : "<p>No model calls yet.</p>"
  }
${view.selected !== null && !selected ? `<p>No model call with id ${esc(view.selected)}.</p>` : ""}
${selected ? opened(selected) : ""}
<h3>Queued replies</h3>${queued}
<form method="post" action="/_models/script/clear"><button>Clear queued replies</button></form>
${scriptForm(Object.keys(view.queued))}
</section>`;
}

/** GET /_models: the viewer on a page of its own. */
export function renderModelsPage(view: ModelViewerView): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Model calls - provider sandbox</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 2rem; color: #222; }
  table { border-collapse: collapse; margin-bottom: 1rem; }
  td, th { border: 1px solid #ddd; padding: .3rem .6rem; text-align: left; vertical-align: top; }
  pre { background: #f6f6f6; padding: .5rem; overflow-x: auto; white-space: pre-wrap; margin: .2rem 0; }
  .bad { color: #b00; }
</style></head>
<body><p><a href="/">Sandbox inbox</a></p>
${renderModelViewer(view)}
</body></html>`;
}
