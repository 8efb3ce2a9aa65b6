/**
 * The mail viewer on the sandbox page, like Mailpit: the emails the Resend stand-in accepted,
 * newest first, and the one selected (?provider=resend&mail=<id>) opened: its envelope, the
 * HTML rendered in a sandboxed iframe (srcdoc; no scripts, no same-origin access, so a mail
 * cannot touch the page), the text part, tags and headers, the webhook events sent for it, and
 * a form that sends the next event to our webhook.
 */

/** An email as the stand-in keeps it (the API's GET /emails/{id} shape plus what the viewer needs). */
export interface SandboxEmail {
  object: "email";
  id: string;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  subject: string;
  html: string | null;
  text: string | null;
  tags: { name: string; value: string }[];
  headers: Record<string, string>;
  created_at: string;
  last_event: string;
  /** The events sent for it, oldest first. */
  events: { type: string; at: string; status: number }[];
}

const EVENTS = [
  "email.delivered",
  "email.delivery_delayed",
  "email.bounced",
  "email.complained",
  "email.opened",
  "email.clicked",
  "email.failed",
  "email.sent",
];

function esc(v: unknown): string {
  return String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function listRow(m: SandboxEmail, selected: boolean): string {
  return `<tr${selected ? ' class="sel"' : ""}><td>${esc(m.created_at)}</td><td>${esc(m.from)}</td>
    <td>${esc(m.to.join(", "))}</td>
    <td><a href="/?provider=resend&amp;mail=${encodeURIComponent(m.id)}">${esc(m.subject)}</a></td>
    <td>${esc(m.last_event)}</td></tr>`;
}

function opened(m: SandboxEmail, canSend: boolean): string {
  const envelope = [
    ["From", m.from],
    ["To", m.to.join(", ")],
    ...(m.cc.length ? [["Cc", m.cc.join(", ")]] : []),
    ...(m.bcc.length ? [["Bcc", m.bcc.join(", ")]] : []),
    ...(m.reply_to.length ? [["Reply-To", m.reply_to.join(", ")]] : []),
    ["Subject", m.subject],
    ["Date", m.created_at],
    ["Id", m.id],
  ].map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join("");
  const html = m.html === null
    ? "<p>(no HTML part)</p>"
    : `<iframe class="mail" sandbox="" referrerpolicy="no-referrer" title="HTML part" srcdoc="${
      esc(m.html)
    }"></iframe>`;
  const tags = m.tags.map((t) => `${esc(t.name)}=${esc(t.value)}`).join(", ") || "(none)";
  const headers = Object.entries(m.headers).map(([k, v]) => `${esc(k)}: ${esc(v)}`).join("\n") || "(none)";
  const events = m.events.length
    ? `<ul>${
      m.events.map((e) => `<li>${esc(e.at)} ${esc(e.type)} &rarr; ${esc(e.status)}</li>`).join("")
    }</ul>`
    : "<p>No webhook events sent yet.</p>";
  const form = canSend
    ? `<form method="post" action="/resend/_sandbox/emails/${encodeURIComponent(m.id)}/events">
        <select name="type">${EVENTS.map((e) => `<option>${e}</option>`).join("")}</select>
        <button>Send signed event to the webhook</button></form>`
    : "<p>No webhook endpoint is registered with the stand-in.</p>";
  return `<section class="message"><table class="env">${envelope}</table>
  <h3>HTML</h3>${html}
  <h3>Text</h3><pre>${m.text === null ? "(no text part)" : esc(m.text)}</pre>
  <h3>Tags</h3><p>${tags}</p>
  <h3>Headers</h3><pre>${headers}</pre>
  <h3>Webhook events</h3>${events}${form}</section>`;
}

/** The viewer as an HTML fragment for the sandbox page. */
export function renderMailViewer(
  emails: SandboxEmail[],
  selectedId: string | null,
  canSend: boolean,
): string {
  const selected = selectedId ? emails.find((m) => m.id === selectedId) : undefined;
  const rows = emails.map((m) => listRow(m, m.id === selected?.id)).join("\n");
  return `<section class="mailviewer"><style>
  .mailviewer tr.sel { background: #eef5ff; }
  .mailviewer iframe.mail { width: 100%; height: 420px; border: 1px solid #ccc; background: #fff; }
  .mailviewer table.env th { text-align: right; color: #555; }
</style>
<h2>Mail (Resend stand-in)</h2>
${
    emails.length
      ? `<table><tr><th>received</th><th>from</th><th>to</th><th>subject</th><th>last event</th></tr>${rows}</table>`
      : "<p>No email sent yet.</p>"
  }
${selectedId && !selected ? `<p>No email with id ${esc(selectedId)}.</p>` : ""}
${selected ? opened(selected, canSend) : ""}
</section>`;
}
