// The dashboard page's script (served inlined by page.ts; globals Tabulator and CodeMirror come
// from the npm packages inlined before it). Every API call carries the per-process token.
/* global Tabulator, CodeMirror */
"use strict";
const CFG = JSON.parse(document.getElementById("cfg").textContent);
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function api(path, opts = {}) {
  const headers = { "x-dashboard-token": CFG.token, ...(opts.headers || {}) };
  let body = opts.body;
  if (body !== undefined && !(body instanceof Blob) && typeof body !== "string") {
    body = JSON.stringify(body);
    headers["content-type"] = headers["content-type"] || "application/json";
  }
  const res = await fetch(`/api${path}`, {
    method: opts.method || (body === undefined ? "GET" : "POST"),
    headers,
    body,
  });
  const text = await res.text();
  let data = text;
  if ((res.headers.get("content-type") || "").includes("json") && text) data = JSON.parse(text);
  if (!res.ok) {
    const msg = (data && (data.error || data.message || data.msg || data.error_description)) || text;
    throw new Error(`${res.status}: ${typeof msg === "string" ? msg : JSON.stringify(msg)}`);
  }
  return { data, res };
}

let statusTimer = null;
function flash(msg, error = false) {
  const el = $("status");
  el.textContent = msg;
  el.className = error ? "err" : "";
  el.style.display = "block";
  clearTimeout(statusTimer);
  statusTimer = setTimeout(() => (el.style.display = "none"), 6000);
}
/** Runs an action, flashing its failure (every button goes through it). */
const act = (fn) => async (...args) => {
  try {
    await fn(...args);
  } catch (err) {
    flash(err.message, true);
  }
};
const on = (id, fn) => $(id).addEventListener("click", act(fn));
const cell = (v) => (v !== null && typeof v === "object" ? JSON.stringify(v) : v);
/** A Tabulator grid; `onRow(row)` runs on a row click. Data goes in with setRows, once it is built. */
function grid(id, opts, onRow) {
  const table = new Tabulator(`#${id}`, {
    layout: "fitDataStretch",
    maxHeight: "24rem",
    placeholder: "No rows",
    autoColumnsDefinitions: (defs) => defs.map((d) => ({ ...d, formatter: (c) => esc(cell(c.getValue())) })),
    ...opts,
  });
  table.ready = new Promise((resolve) => table.on("tableBuilt", resolve));
  if (onRow) table.on("rowClick", (_e, row) => act(onRow)(row.getData()));
  return table;
}
const setRows = async (table, data) => {
  await table.ready;
  await table.setData(data);
};

// ---- Tables ----
let schemaInfo = null, tableGrid = null, current = null, policiesGrid = null, listGrid = null;
const TEXTY = /^(text|character|uuid|citext|name)/;
const JSONY = /^(json|jsonb)|\[\]$/;
async function loadTables() {
  schemaInfo = (await api("/schema")).data;
  const schemas = [...new Set(schemaInfo.tables.map((t) => t.schema))];
  const sel = $("schema");
  const was = sel.value || "public";
  sel.innerHTML = schemas.map((s) => `<option${s === was ? " selected" : ""}>${esc(s)}</option>`).join("");
  await showTableList();
}
async function showTableList() {
  const schema = $("schema").value;
  const rows = schemaInfo.tables.filter((t) => t.schema === schema).map((t) => ({
    ...t,
    policies: schemaInfo.policies.filter((p) => p.schema === t.schema && p.table === t.name).length,
  }));
  listGrid ??= grid("tables-list", {
    columns: [
      { title: "table", field: "name", headerFilter: "input" },
      { title: "RLS", field: "rls", formatter: "tickCross" },
      { title: "policies", field: "policies" },
    ],
  }, openTable);
  await setRows(listGrid, rows);
}
async function openTable(t) {
  current = t;
  const exposed = schemaInfo.exposed.includes(t.schema);
  $("table-title").textContent = `${t.schema}.${t.name}${t.rls ? " (RLS on)" : " (RLS off)"}`;
  $("table-title").className = "";
  $("table-note").textContent = exposed
    ? (t.pk.length ? "" : "No primary key: rows are read-only.")
    : `Schema ${t.schema} is not exposed by the REST API; browse it on the SQL page.`;
  policiesGrid ??= grid("policies", {
    columns: ["name", "cmd", "roles", "permissive", "using", "check"].map((f) => ({
      title: f,
      field: f,
      formatter: (c) => esc(cell(c.getValue())),
    })),
  });
  await setRows(policiesGrid, schemaInfo.policies.filter((p) => p.schema === t.schema && p.table === t.name));
  if (tableGrid) tableGrid.destroy();
  tableGrid = null;
  $("rows").innerHTML = "";
  if (!exposed) return;
  const editable = t.pk.length > 0;
  tableGrid = grid("rows", {
    selectableRows: 1,
    pagination: true,
    paginationMode: "remote",
    paginationSize: 25,
    sortMode: "remote",
    filterMode: "remote",
    ajaxURL: "rest",
    ajaxRequestFunc: (_url, _cfg, params) => fetchRows(t, params),
    columns: t.columns.map((c) => ({
      title: `${c.name}${t.pk.includes(c.name) ? " (pk)" : ""}`,
      field: c.name,
      headerFilter: "input",
      headerFilterLiveFilter: false,
      editor: editable && !JSONY.test(c.type) && !t.pk.includes(c.name) ? "input" : false,
      editTriggerEvent: "dblclick",
      formatter: (x) => esc(cell(x.getValue())),
      headerTooltip: c.type,
    })),
  });
  tableGrid.on(
    "cellEdited",
    act(async (c) => {
      const row = c.getRow().getData();
      const { data } = await api(`/rest/${encodeURIComponent(t.name)}?${pkFilter(t, row)}`, {
        method: "PATCH",
        headers: { "content-profile": t.schema, prefer: "return=representation" },
        body: { [c.getField()]: c.getValue() === "" ? null : c.getValue() },
      });
      if (!data.length) throw new Error("no row was updated (it is gone, or the value was refused)");
      flash(`updated ${t.name}.${c.getField()}`);
    }),
  );
}
const pkFilter = (t, row) =>
  t.pk.map((k) => `${encodeURIComponent(k)}=eq.${encodeURIComponent(row[k])}`).join("&");
async function fetchRows(t, params) {
  const size = params.size || 25;
  const page = params.page || 1;
  const qs = new URLSearchParams({ select: "*", limit: String(size), offset: String((page - 1) * size) });
  const order = (params.sort || []).map((s) => `${s.field}.${s.dir}`).join(",");
  if (order) qs.set("order", order);
  for (const f of params.filter || []) {
    const col = t.columns.find((c) => c.name === f.field);
    if (!col || f.value === "") continue;
    qs.append(f.field, TEXTY.test(col.type) && col.type !== "uuid" ? `ilike.*${f.value}*` : `eq.${f.value}`);
  }
  const { data, res } = await api(`/rest/${encodeURIComponent(t.name)}?${qs}`, {
    headers: { "accept-profile": t.schema, prefer: "count=exact" },
  });
  const total = Number((res.headers.get("content-range") || "/0").split("/")[1]) || 0;
  return { last_page: Math.max(1, Math.ceil(total / size)), last_row: total, data };
}
on("row-insert", () => {
  if (!current) throw new Error("pick a table first");
  const template = Object.fromEntries(
    current.columns.filter((c) => !current.pk.includes(c.name)).map((c) => [c.name, null]),
  );
  $("insert-json").value = JSON.stringify(template, null, 2);
  $("insert-box").style.display = "block";
});
on("insert-cancel", () => ($("insert-box").style.display = "none"));
on("insert-go", async () => {
  const body = JSON.parse($("insert-json").value);
  for (const k of Object.keys(body)) if (body[k] === null) delete body[k];
  await api(`/rest/${encodeURIComponent(current.name)}`, {
    method: "POST",
    headers: { "content-profile": current.schema, prefer: "return=representation" },
    body,
  });
  $("insert-box").style.display = "none";
  flash(`inserted a row into ${current.name}`);
  await tableGrid.setData();
});
on("row-delete", async () => {
  const row = tableGrid?.getSelectedData()[0];
  if (!row) throw new Error("select a row first (click it)");
  const filter = pkFilter(current, row);
  if (!confirm(`Delete the row ${decodeURIComponent(filter)} from ${current.schema}.${current.name}?`)) {
    return;
  }
  await api(`/rest/${encodeURIComponent(current.name)}?${filter}`, {
    method: "DELETE",
    headers: { "content-profile": current.schema },
  });
  flash(`deleted ${decodeURIComponent(filter)}`);
  await tableGrid.setData();
});
on("rows-reload", () => tableGrid?.setData());
$("schema").addEventListener("change", act(showTableList));

// ---- SQL ----
let editor = null, resultsGrid = null, historyGrid = null;
async function initSql() {
  editor ??= CodeMirror.fromTextArea($("sql-text"), {
    mode: "text/x-pgsql",
    lineNumbers: true,
    extraKeys: { "Ctrl-Enter": () => act(runSql)(), "Cmd-Enter": () => act(runSql)() },
  });
  globalThis.dashboardSqlEditor = editor;
  await loadHistory();
}
async function loadHistory() {
  const { data } = await api("/sql/history");
  historyGrid ??= grid("sql-history", {
    columns: [
      { title: "at", field: "at" },
      { title: "query", field: "query", formatter: (c) => esc(c.getValue().slice(0, 120)) },
      { title: "rows", field: "rows" },
      { title: "ms", field: "ms" },
      { title: "error", field: "error", formatter: (c) => `<span class="err">${esc(c.getValue())}</span>` },
    ],
  }, (r) => editor.setValue(r.query));
  await setRows(historyGrid, data);
}
async function runSql() {
  $("sql-error").style.display = "none";
  try {
    const { data } = await api("/sql", { body: { query: editor.getValue() } });
    $("sql-info").textContent = `${data.rows.length} row(s) in ${data.ms} ms`;
    if (resultsGrid) resultsGrid.destroy();
    resultsGrid = grid("sql-results", {
      autoColumns: true,
      data: data.rows,
      pagination: true,
      paginationSize: 50,
    });
  } catch (err) {
    $("sql-error").textContent = err.message;
    $("sql-error").style.display = "block";
    $("sql-info").textContent = "";
  }
  await loadHistory();
}
on("sql-run", runSql);

// ---- Auth ----
let usersGrid = null, selectedUser = null, userWsGrid = null;
async function loadUsers() {
  const filter = $("user-search").value.trim();
  const qs = new URLSearchParams({ page: "1", per_page: "200", ...(filter ? { filter } : {}) });
  const { data } = await api(`/auth/admin/users?${qs}`);
  usersGrid ??= grid("users", {
    selectableRows: 1,
    columns: [
      { title: "email", field: "email" },
      { title: "id", field: "id" },
      { title: "created", field: "created_at" },
      { title: "last sign-in", field: "last_sign_in_at" },
      { title: "confirmed", field: "email_confirmed_at", formatter: (c) => (c.getValue() ? "yes" : "no") },
      { title: "banned until", field: "banned_until" },
    ],
  }, selectUser);
  await setRows(usersGrid, data.users);
  if (selectedUser) {
    const again = data.users.find((u) => u.id === selectedUser.id);
    if (again) await selectUser(again);
  }
}
async function selectUser(u) {
  selectedUser = u;
  $("user-selected").textContent = u.email;
  const { data } = await api(`/users/${u.id}`);
  $("user-details").innerHTML = `<span>role: <b id="user-role">${esc(data.role)}</b></span>` +
    `<span>credits: <b id="user-credits">${esc(data.credits)}</b></span>` +
    `<span>banned until: <b id="user-banned">${esc(u.banned_until || "not banned")}</b></span>`;
  userWsGrid ??= grid("user-workspaces", { autoColumns: true });
  await setRows(userWsGrid, data.workspaces);
}
const needUser = () => {
  if (!selectedUser) throw new Error("select a user first");
  return selectedUser;
};
on("user-search-go", loadUsers);
$("user-search").addEventListener("keydown", (e) => e.key === "Enter" && act(loadUsers)());
on("user-create", async () => {
  const { data } = await api("/auth/admin/users", {
    body: { email: $("user-email").value, password: $("user-password").value, email_confirm: true },
  });
  flash(`created ${data.email}`);
  selectedUser = data;
  await loadUsers();
});
on("user-invite", async () => {
  const { data } = await api("/auth/invite", { body: { email: $("user-email").value } });
  flash(`invited ${data.email}`);
  await loadUsers();
});
const ban = (duration) => async () => {
  const u = needUser();
  await api(`/auth/admin/users/${u.id}`, { method: "PUT", body: { ban_duration: duration } });
  flash(duration === "none" ? `unbanned ${u.email}` : `banned ${u.email} for ${duration}`);
  await loadUsers();
};
on("user-ban", ban("24h"));
on("user-unban", ban("none"));
on("user-magic", async () => {
  const u = needUser();
  const { data } = await api("/auth/admin/generate_link", { body: { type: "magiclink", email: u.email } });
  const link = data.action_link || data.properties?.action_link;
  $("user-link").innerHTML = `magic link for ${
    esc(u.email)
  }: <input id="magic-link" size="80" readonly value="${esc(link)}">`;
});
on("user-delete", async () => {
  const u = needUser();
  if (!confirm(`Delete user ${u.email}? This removes their data.`)) return;
  await api(`/auth/admin/users/${u.id}`, { method: "DELETE" });
  flash(`deleted ${u.email}`);
  selectedUser = null;
  $("user-selected").textContent = "none";
  await loadUsers();
});

// ---- Storage ----
let bucketsGrid = null, objectsGrid = null, bucket = null, prefix = "", selectedObject = null;
async function loadBuckets() {
  const { data } = await api("/storage/bucket");
  bucketsGrid ??= grid("buckets", {
    columns: [{ title: "bucket", field: "name" }, {
      title: "public",
      field: "public",
      formatter: "tickCross",
    }, {
      title: "size limit",
      field: "file_size_limit",
    }],
  }, (b) => {
    bucket = b.name;
    prefix = "";
    return loadObjects();
  });
  await setRows(bucketsGrid, data);
}
async function loadObjects() {
  $("storage-path").textContent = `${bucket}/${prefix}`;
  const { data } = await api(`/storage/object/list/${encodeURIComponent(bucket)}`, {
    body: { prefix, limit: 1000, offset: 0, sortBy: { column: "name", order: "asc" } },
  });
  objectsGrid ??= grid("objects", {
    selectableRows: 1,
    columns: [
      {
        title: "name",
        field: "name",
        formatter: (c) => (c.getData().id ? "📄 " : "📁 ") + esc(c.getValue()),
      },
      { title: "size", field: "metadata.size" },
      { title: "type", field: "metadata.mimetype" },
      { title: "updated", field: "updated_at" },
    ],
  }, openObject);
  selectedObject = null;
  $("preview").innerHTML = "";
  $("signed-url").value = "";
  await setRows(objectsGrid, data);
}
async function openObject(o) {
  if (!o.id) {
    prefix = `${prefix}${o.name}/`;
    return await loadObjects();
  }
  selectedObject = `${prefix}${o.name}`;
  const path = selectedObject.split("/").map(encodeURIComponent).join("/");
  const { data } = await api(`/storage/object/sign/${encodeURIComponent(bucket)}/${path}`, {
    body: { expiresIn: 3600 },
  });
  const url = `${CFG.platformUrl}/storage/v1${data.signedURL}`;
  $("signed-url").value = url;
  const type = o.metadata?.mimetype || "";
  $("preview").innerHTML = type.startsWith("image/")
    ? `<img id="preview-image" alt="${esc(o.name)}" src="${esc(url)}">`
    : type === "application/pdf"
    ? `<iframe id="preview-pdf" title="${esc(o.name)}" src="${esc(url)}"></iframe>`
    : `<p class="muted">No preview for ${esc(type || "this type")}.</p>`;
}
on("folder-up", () => {
  if (!bucket) return;
  prefix = prefix.split("/").slice(0, -2).join("/");
  if (prefix) prefix += "/";
  return loadObjects();
});
on("upload-go", async () => {
  const file = $("upload-file").files[0];
  if (!bucket || !file) throw new Error("pick a bucket and a file");
  const path = `${prefix}${file.name}`.split("/").map(encodeURIComponent).join("/");
  await api(`/storage/object/${encodeURIComponent(bucket)}/${path}`, {
    body: file,
    headers: { "content-type": file.type || "application/octet-stream", "x-upsert": "true" },
  });
  flash(`uploaded ${prefix}${file.name}`);
  await loadObjects();
});
on("object-delete", async () => {
  if (!selectedObject) throw new Error("select a file first");
  if (!confirm(`Delete ${bucket}/${selectedObject}?`)) return;
  await api(`/storage/object/${encodeURIComponent(bucket)}`, {
    method: "DELETE",
    body: { prefixes: [selectedObject] },
  });
  flash(`deleted ${selectedObject}`);
  await loadObjects();
});
on("copy-url", async () => {
  if (!$("signed-url").value) throw new Error("select a file first");
  await navigator.clipboard.writeText($("signed-url").value);
  flash("signed URL copied");
});

// ---- Functions ----
let fnGrid = null, invGrid = null, fnName = null;
async function loadFunctions() {
  const { data } = await api("/functions-list");
  fnGrid ??= grid("functions", {
    maxHeight: "16rem",
    columns: [
      { title: "function", field: "name", headerFilter: "input" },
      { title: "verify_jwt", field: "verify_jwt", formatter: "tickCross" },
      { title: "invocations", field: "invocations" },
      { title: "last status", field: "last_status" },
    ],
  }, (f) => {
    fnName = f.name;
    return loadInvocations();
  });
  await setRows(fnGrid, data);
  if (fnName) await loadInvocations();
  await loadAiRoutes();
}
async function loadInvocations() {
  $("fn-title").textContent = `functions/${fnName}`;
  $("fn-title").className = "";
  const { data } = await api(`/invocations/${encodeURIComponent(fnName)}`);
  invGrid ??= grid("invocations", {
    columns: ["time", "method", "path", "status", "ms", "requestId", "caller", "error"].map((f) => ({
      title: f,
      field: f,
    })),
    placeholder: "No invocations recorded",
  }, (i) => showRequestLog(i.requestId));
  await setRows(invGrid, data.invocations);
}
async function showRequestLog(id) {
  const { data } = await api(`/request-log/${encodeURIComponent(id)}`);
  $("request-log-title").textContent = `Log lines of request ${id}`;
  $("request-log").textContent =
    data.map((l) => l.kind === "platform" ? l.line : `${l.time} [${l.source}] ${l.kind}: ${l.line}`).join(
      "\n",
    ) || "(no lines)";
}
let aiRoutesGrid = null, aiReqGrid = null;
async function loadAiRoutes() {
  const { data } = await api("/ai-routes");
  aiRoutesGrid ??= grid("ai-routes", {
    maxHeight: "16rem",
    columns: [
      { title: "method", field: "method", headerFilter: "input" },
      { title: "route", field: "path", headerFilter: "input" },
      { title: "requests", field: "invocations", sorter: "number" },
      { title: "last status", field: "last_status" },
    ],
    initialSort: [{ column: "invocations", dir: "desc" }],
  }, (r) => {
    aiRoutesGrid.route = r;
    $("ai-requests-title").textContent = `AI backend requests: ${r.method} ${r.path}`;
    return aiReqGrid.setFilter((i) => i.method === r.method && i.route === r.path);
  });
  await setRows(aiRoutesGrid, data.routes);
  aiReqGrid ??= grid("ai-requests", {
    maxHeight: "16rem",
    columns: ["time", "method", "path", "route", "status", "ms", "requestId", "caller", "error"].map((f) => ({
      title: f,
      field: f,
    })),
    placeholder: "No AI backend requests recorded",
  }, (i) => showRequestLog(i.requestId));
  await setRows(aiReqGrid, data.requests);
}
on("fn-invoke", async () => {
  if (!fnName) throw new Error("pick a function first");
  const method = $("fn-method").value;
  const res = await fetch(`/api/functions/${encodeURIComponent(fnName)}${$("fn-path").value}`, {
    method,
    headers: { "x-dashboard-token": CFG.token, "content-type": "application/json" },
    body: method === "GET" ? undefined : $("fn-body").value,
  });
  $("fn-response").style.display = "block";
  $("fn-response").textContent = `${res.status} (request ${res.headers.get("x-request-id")})\n${await res
    .text()}`;
  await loadFunctions();
});

// ---- Cron & queues ----
let jobsGrid = null, runsGrid = null, netGrid = null, queuesGrid = null, msgGrid = null, queue = null;
async function loadCron() {
  const { data } = await api("/cron");
  jobsGrid ??= grid("cron-jobs", {
    columns: [
      { title: "id", field: "jobid" },
      { title: "name", field: "jobname" },
      { title: "schedule", field: "schedule" },
      { title: "active", field: "active", formatter: "tickCross" },
      { title: "next run", field: "next_run" },
      { title: "last run", field: "last_run" },
      {
        title: "",
        formatter: (c) => `<button class="toggle">${c.getData().active ? "Pause" : "Resume"}</button>`,
        cellClick: (_e, c) => act(toggleJob)(c.getData()),
      },
      {
        title: "",
        formatter: () => `<button class="run-now">Run now</button>`,
        cellClick: (_e, c) => act(runJob)(c.getData()),
      },
      { title: "command", field: "command", formatter: (c) => esc(String(c.getValue()).slice(0, 80)) },
    ],
  });
  await setRows(jobsGrid, data.jobs);
  runsGrid ??= grid("cron-runs", {
    maxHeight: "16rem",
    columns: [
      { title: "run", field: "runid" },
      { title: "job", field: "jobname" },
      { title: "status", field: "status" },
      { title: "return message", field: "return_message" },
      { title: "started", field: "start_time" },
      { title: "pg_net request", field: "net_request_ids" },
      { title: "response status", field: "response_status" },
      {
        title: "response body",
        field: "response_body",
        formatter: (c) => esc(String(c.getValue() ?? "").slice(0, 160)),
        tooltip: (_e, c) => c.getValue() ?? "",
      },
    ],
  });
  await setRows(runsGrid, data.runs);
  netGrid ??= grid("net-responses", { autoColumns: true, maxHeight: "14rem" });
  await setRows(netGrid, data.responses);
  const queues = (await api("/queues")).data;
  queuesGrid ??= grid("queues", { autoColumns: true }, (r) => {
    queue = r.queue_name;
    return loadMessages();
  });
  await setRows(queuesGrid, queues);
}
async function runJob(j) {
  const { data } = await api(`/cron/${j.jobid}/run`, { body: {} });
  flash(`${j.jobname}: ran now (run ${data.runid})`);
  await loadCron();
}
async function toggleJob(j) {
  await api(`/cron/${j.jobid}/active`, { body: { active: !j.active } });
  flash(`${j.jobname}: ${j.active ? "paused" : "resumed"}`);
  await loadCron();
}
async function loadMessages() {
  $("queue-title").textContent = `queue ${queue}`;
  $("queue-title").className = "";
  const { data } = await api(`/queues/${encodeURIComponent(queue)}`);
  msgGrid ??= grid("queue-messages", { autoColumns: true });
  await setRows(msgGrid, data);
}
on("cron-reload", loadCron);
on("queue-send", async () => {
  if (!queue) throw new Error("pick a queue first");
  const { data } = await api(`/queues/${encodeURIComponent(queue)}/send`, {
    body: JSON.parse($("queue-msg").value),
  });
  flash(`sent message ${data.msg_id} to ${queue}`);
  await loadCron();
  await loadMessages();
});

// ---- Realtime ----
let rtGrid = null, rtAfter = 0;
async function pollRealtime() {
  const { data } = await api(`/realtime/events?after=${rtAfter}`);
  $("rt-joined").textContent = data.channels.length ? `joined: ${data.channels.join(", ")}` : "not joined";
  rtGrid ??= grid("rt-events", {
    columns: ["seq", "at", "channel", "type", "event"].map((f) => ({ title: f, field: f })).concat([{
      title: "payload",
      field: "payload",
      formatter: (c) => esc(JSON.stringify(c.getValue())),
    }]),
    initialSort: [{ column: "seq", dir: "desc" }],
  });
  if (data.events.length) {
    rtAfter = data.events[data.events.length - 1].seq;
    await rtGrid.ready;
    await rtGrid.addData(data.events, true);
  }
}
const channel = () => $("rt-channel").value.trim();
on("rt-join", async () => {
  await api("/realtime/join", {
    body: { channel: channel(), table: $("rt-table").value.trim() || undefined },
  });
  await pollRealtime();
});
on("rt-leave", async () => {
  await api("/realtime/leave", { body: { channel: channel() } });
  await pollRealtime();
});
on("rt-send", async () => {
  await api("/realtime/send", {
    body: { channel: channel(), event: $("rt-event").value, payload: JSON.parse($("rt-payload").value) },
  });
});
on("rt-track", async () => {
  await api("/realtime/track", { body: { channel: channel(), state: { at: new Date().toISOString() } } });
});

// ---- Operations ----
const opsGrids = {};
async function loadOps() {
  const audit = (await api("/ops/price-audit")).data[0];
  $("ops-audit").innerHTML = `<span>price lookups: <b id="audit-lookups">${audit.lookups}</b></span>` +
    `<span>committed: <b>${audit.committed}</b></span><span>commit rate: <b id="audit-rate">${
      audit.commit_rate === null ? "n/a" : (audit.commit_rate * 100).toFixed(1) + "%"
    }</b></span><span>zero-result lookups: <b id="audit-zero">${audit.zero_result}</b></span>`;
  for (const name of ["ledger", "jobs", "flows", "bulks"]) {
    const { data } = await api(`/ops/${name}`);
    opsGrids[name] ??= grid(`ops-${name}`, {
      autoColumns: true,
      maxHeight: "16rem",
      ...(OPS_COLUMNS[name] ? { autoColumnsDefinitions: OPS_COLUMNS[name] } : {}),
    }, name === "flows" ? showNodeResults : undefined);
    await setRows(opsGrids[name], data);
  }
}
const plain = (d) => ({ ...d, formatter: (c) => esc(cell(c.getValue())) });
/** A progress bar of `pct` (0-100) labelled `label`. */
const progressBar = (pct, label) =>
  `<div class="bar-out"><div class="bar-in" style="width:${Math.max(0, Math.min(100, pct))}%"></div>` +
  `<span>${esc(label)}</span></div>`;
/** Column definitions per operations grid: progress drawn as bars, the rest as text. */
const OPS_COLUMNS = {
  jobs: (defs) =>
    defs.map((d) =>
      d.field === "progress"
        ? { ...d, title: "progress", formatter: (c) => progressBar(c.getValue(), `${c.getValue()}%`) }
        : plain(d)
    ),
  bulks: (defs) =>
    defs.map((d) =>
      d.field === "done"
        ? {
          ...d,
          title: "progress",
          formatter: (c) => {
            const r = c.getData();
            const pct = Math.round((100 * r.done) / r.total);
            return progressBar(pct, `${r.done}/${r.total} (${pct}%)`);
          },
        }
        : plain(d)
    ),
};
let nodesGrid = null;
/** A flow run's node results as a grid: one row per node, its output and config as short text. */
async function showNodeResults(run) {
  const { data } = await api(`/flow-runs/${run.id}`);
  $("flow-nodes-title").textContent = `Node results of run ${run.id} (${run.flow ?? "flow"}, ${run.status})`;
  const short = (v) => (v === undefined ? "" : JSON.stringify(v).slice(0, 200));
  nodesGrid ??= grid("flow-nodes", {
    maxHeight: "18rem",
    columns: [
      { title: "#", field: "n" },
      { title: "node", field: "node_id" },
      { title: "type", field: "node_type" },
      {
        title: "status",
        field: "status",
        formatter: (c) => `<span class="st-${esc(c.getValue())}">${esc(c.getValue())}</span>`,
      },
      { title: "ms", field: "duration_ms" },
      { title: "branch", field: "branch" },
      { title: "error", field: "error", formatter: (c) => `<span class="err">${esc(c.getValue())}</span>` },
      { title: "output", field: "output_text", tooltip: true },
      { title: "resolved config", field: "config_text", tooltip: true },
    ],
  });
  await setRows(
    nodesGrid,
    data.map((s, i) => ({
      ...s,
      n: i + 1,
      output_text: short(s.output),
      config_text: short(s.resolved_config),
    })),
  );
}
on("grant-go", async () => {
  const amount = Number($("grant-amount").value);
  await api("/rest/rpc/grant_credits", {
    body: {
      p_user_id: $("grant-user").value.trim(),
      p_amount: amount,
      p_kind: "grant",
      p_action: "dashboard_grant",
    },
  });
  flash(`granted ${amount} credits`);
  await loadOps();
});

// ---- Sandbox ----
let capGrid = null;
async function loadSandbox() {
  const { data } = await api("/sandbox");
  $("sandbox-links").innerHTML = data.url
    ? `<a href="${esc(data.url)}/" target="_blank" rel="noopener">Inbox (captures)</a> · ` +
      `<a href="${esc(data.url)}/_models" target="_blank" rel="noopener">Model calls</a> · ` +
      `<a href="${esc(data.url)}/_site/" target="_blank" rel="noopener">Site pages</a>`
    : "The sandbox is not running.";
  capGrid ??= grid("captures", {
    columns: ["id", "provider", "direction", "time", "method", "path", "status", "rule"].map((f) => ({
      title: f,
      field: f,
    })),
  });
  await setRows(capGrid, data.captures);
}

// ---- Navigation ----
const LOADERS = {
  tables: loadTables,
  sql: initSql,
  auth: loadUsers,
  storage: loadBuckets,
  functions: loadFunctions,
  cron: loadCron,
  realtime: pollRealtime,
  ops: loadOps,
  sandbox: loadSandbox,
};
let ticker = null;
async function show() {
  const name = location.hash.slice(1) in LOADERS ? location.hash.slice(1) : "tables";
  for (const s of document.querySelectorAll("section")) s.classList.toggle("on", s.id === `page-${name}`);
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("on", a.id === `nav-${name}`);
  clearInterval(ticker);
  ticker = name === "realtime" ? setInterval(act(pollRealtime), 1000) : name === "ops"
    ? setInterval(
      act(async () => {
        const { data } = await api("/ops/jobs");
        opsGrids.jobs?.replaceData(data);
      }),
      2000,
    )
    : null;
  document.body.dataset.page = name;
  await act(LOADERS[name])();
  document.body.dataset.loaded = name;
}
addEventListener("hashchange", () => {
  document.body.dataset.loaded = "";
  show();
});
show();
