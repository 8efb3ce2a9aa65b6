/**
 * The Late stand-in's panel on the sandbox page: the profiles, the connected accounts, the posts
 * (newest first, with each platform's status, URL or error) and the webhook events sent, plus a
 * form per post that sends the next post.* event to our webhook.
 */
/** An account and a post as the stand-in keeps them (the API shapes plus what the panel needs). */
export interface LateSandboxAccount {
  _id: string;
  platform: string;
  profileId: string;
  username: string;
  displayName: string;
  profilePicture: string;
  profileUrl: string;
  isActive: boolean;
  followersCount: number;
  createdAt: string;
}

export interface LateSandboxPostPlatform {
  platform: string;
  accountId: string;
  status: string;
  platformPostId?: string;
  platformPostUrl?: string;
  publishedAt?: string;
  errorMessage?: string;
}

export interface LateSandboxPost {
  _id: string;
  content: string;
  mediaItems: { type: string; url: string }[];
  status: string;
  platforms: LateSandboxPostPlatform[];
  scheduledFor: string | null;
  createdAt: string;
  requestId: string | null;
}

export interface LatePanelView {
  profiles: { _id: string; name: string }[];
  accounts: LateSandboxAccount[];
  posts: LateSandboxPost[];
  events: { id: string; event: string; postId: string | null; status: number; at: string }[];
  webhookUrl: string;
}

const SHOWN = 50;

function esc(v: unknown): string {
  return String(v ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function table(head: string[], rows: string[][]): string {
  if (rows.length === 0) return "<p>None yet.</p>";
  return `<table><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>${
    rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("\n")
  }</table>`;
}

export function renderLatePanel(v: LatePanelView): string {
  const profiles = table(
    ["profile", "name"],
    v.profiles.map((p) => [`<code>${esc(p._id)}</code>`, esc(p.name)]),
  );
  const accounts = table(
    ["account", "platform", "username", "profile", "active"],
    v.accounts.slice(0, SHOWN).map((a) => [
      `<code>${esc(a._id)}</code>`,
      esc(a.platform),
      esc(a.username),
      `<code>${esc(a.profileId)}</code>`,
      a.isActive ? "yes" : "no",
    ]),
  );
  const form = (p: LateSandboxPost) =>
    v.webhookUrl
      ? `<form method="post" action="/late/_sandbox/posts/${esc(p._id)}/events">
  <select name="event"><option>post.published</option><option>post.failed</option><option>post.partial</option>
  <option>post.cancelled</option></select> <button>send</button></form>`
      : "";
  const posts = table(
    ["post", "status", "content", "media", "platforms", "created", "event"],
    v.posts.slice(0, SHOWN).map((p) => [
      `<code>${esc(p._id)}</code>`,
      esc(p.status),
      esc(p.content.length > 140 ? `${p.content.slice(0, 140)}…` : p.content),
      p.mediaItems.map((m) => `${esc(m.type)}: <a href="${esc(m.url)}">${esc(m.url)}</a>`).join("<br>"),
      p.platforms.map((x) =>
        `${esc(x.platform)} ${esc(x.status)}${
          x.platformPostUrl ? ` <a href="${esc(x.platformPostUrl)}">link</a>` : ""
        }${x.errorMessage ? ` (${esc(x.errorMessage)})` : ""}`
      ).join("<br>"),
      esc(p.createdAt),
      form(p),
    ]),
  );
  const events = table(
    ["time", "event", "post", "our answer"],
    v.events.slice(0, SHOWN).map((
      e,
    ) => [esc(e.at), esc(e.event), `<code>${esc(e.postId)}</code>`, esc(e.status)]),
  );
  return `<section class="late"><h2>Late (social publishing)</h2>
<p>Webhooks go to <code>${esc(v.webhookUrl || "(nowhere: code does not use the stand-in)")}</code>.</p>
<h3>Profiles</h3>${profiles}
<h3>Accounts</h3>${accounts}
<h3>Posts</h3>${posts}
<h3>Webhook events</h3>${events}</section>`;
}
