/**
 * The sandbox's stand-in for the web app: where code's redirects land when no SITE_URL is
 * configured (the sandbox part sets SITE_URL to <sandbox>/_site). Checkout success and cancel
 * pages ({SITE_URL}/billing?checkout=...), the social OAuth return ({SITE_URL}?state=...&connected=...)
 * and any other page under it answer a small HTML page: what happened (read from the query, as
 * the web app would), every query parameter, and the callbacks the stand-ins sent about it (the
 * events whose body names one of the query's values, else the latest ones), with their status.
 */
import type { Captured } from "./capture.ts";
import type { StandInEntry } from "./registry.ts";

/** The path prefix of the landing pages on the sandbox server. */
export const SITE_PREFIX = "/_site";

const RELATED_SHOWN = 20;

function esc(v: unknown): string {
  return String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What the page says happened, from the query the provider redirected with. */
export function describeLanding(query: URLSearchParams): { title: string; detail: string } {
  const checkout = query.get("checkout");
  if (checkout === "success") {
    return {
      title: "Checkout completed",
      detail: "The provider sent the browser to the checkout's success page" +
        (query.get("session_id") ? ` for session ${query.get("session_id")}.` : "."),
    };
  }
  if (checkout === "cancelled") {
    return { title: "Checkout cancelled", detail: "The customer left the hosted checkout without paying." };
  }
  const connected = query.get("connected");
  if (connected) {
    return {
      title: `Social account connected (${connected})`,
      detail: "The provider finished its OAuth. The web app now calls social-oauth with " +
        JSON.stringify({
          action: "callback",
          workspace_id: query.get("workspace_id"),
          platform: connected,
          late_account_id: query.get("accountId"),
          state: query.get("state"),
        }) + ".",
    };
  }
  return { title: "Redirected here", detail: "Code sent the browser to this page of the site." };
}

/** Outgoing callbacks naming one of the query's values (else the latest), newest first. */
function relatedCallbacks(query: URLSearchParams, entries: StandInEntry[]): Captured[] {
  const out = entries.flatMap((e) => e.standIn.captures.all()).filter((c) => c.direction === "out")
    .sort((a, b) => b.id - a.id);
  const values = [...query.values()].filter((v) => v.length >= 8);
  const related = out.filter((c) => {
    const body = typeof c.body === "string" ? c.body : JSON.stringify(c.body);
    return values.some((v) => body.includes(v));
  });
  return (related.length ? related : out).slice(0, RELATED_SHOWN);
}

function eventName(c: Captured): string {
  const b = c.body as Record<string, unknown> | null;
  if (b && typeof b === "object") {
    for (const key of ["type", "event", "SmsStatus", "MessageStatus"]) {
      if (typeof b[key] === "string") return b[key] as string;
    }
  }
  return "callback";
}

export function renderLanding(path: string, query: URLSearchParams, entries: StandInEntry[]): string {
  const { title, detail } = describeLanding(query);
  const params = [...query.entries()].map(([k, v]) =>
    `<tr><td><code>${esc(k)}</code></td><td>${esc(v)}</td></tr>`
  )
    .join("\n");
  const events = relatedCallbacks(query, entries).map((c) =>
    `<tr><td>${esc(c.time)}</td><td>${esc(c.provider)}</td><td><b>${esc(eventName(c))}</b></td>
      <td><code>${esc(c.url ?? c.path)}</code></td><td>${esc(c.status ?? "…")}</td></tr>`
  ).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)} - sandbox site</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 2rem; color: #222; }
  table { border-collapse: collapse; margin-bottom: 1.5rem; }
  td, th { border: 1px solid #ddd; padding: .3rem .6rem; text-align: left; }
</style></head>
<body>
<h1>${esc(title)}</h1>
<p>${esc(detail)}</p>
<p>This page stands in for the web app at <code>${esc(path)}</code>: SITE_URL is not configured, so
redirects land on the provider sandbox. Set SITE_URL in supabase/functions/.env to send them to your app.
<a href="/">Sandbox inbox</a>.</p>
<h2>Query parameters</h2>
${params ? `<table><tr><th>name</th><th>value</th></tr>\n${params}</table>` : "<p>None.</p>"}
<h2>Events</h2>
${
    events
      ? `<table><tr><th>time</th><th>stand-in</th><th>event</th><th>sent to</th><th>status</th></tr>\n${events}</table>`
      : "<p>No callbacks sent yet.</p>"
  }
</body></html>`;
}
