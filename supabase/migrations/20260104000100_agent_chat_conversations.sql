-- agent-chat persistence: a conversation per chat thread and its messages.
--
-- A conversation belongs to one user; nobody else (not even a workspace owner) reads it, since a
-- chat may carry anything the user typed. agent-chat writes both tables with the caller's JWT,
-- so these policies are the whole access rule.

create table public.agent_chat_conversations (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  -- The workspace the chat's tools were scoped to (null: no workspace tools).
  workspace_id uuid references public.workspaces (id) on delete set null,
  agent_id text not null check (agent_id ~ '^[a-z][a-z0-9-]*$'),
  title text check (length(title) <= 200),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index agent_chat_conversations_user_idx on public.agent_chat_conversations (user_id, updated_at desc);

create table public.agent_chat_messages (
  id uuid primary key default gen_random_uuid(),
  conversation_id uuid not null references public.agent_chat_conversations (id) on delete cascade,
  role text not null check (role in ('user', 'assistant')),
  content text not null,
  -- Assistant turns: the proposals, tool call log ids, model and token usage of the turn; user
  -- turns: how many images came with it (the image data itself is not kept).
  metadata jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index agent_chat_messages_conversation_idx on public.agent_chat_messages (conversation_id, created_at);

create trigger agent_chat_conversations_touch before update on public.agent_chat_conversations
  for each row execute function public.touch_updated_at();

-- A new message bumps its conversation, so "recent chats" sort by last activity.
create function public.agent_chat_messages_bump() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.agent_chat_conversations set updated_at = now() where id = new.conversation_id;
  return null;
end $$;
revoke execute on function public.agent_chat_messages_bump() from public, anon, authenticated;
create trigger agent_chat_messages_bump after insert on public.agent_chat_messages
  for each row execute function public.agent_chat_messages_bump();

-- ---- row-level security ----

alter table public.agent_chat_conversations enable row level security;
alter table public.agent_chat_messages enable row level security;

grant select, delete on public.agent_chat_conversations to authenticated;
-- id is insertable so that agent-chat can name a new conversation in its response headers
-- before the stream that creates it starts.
grant insert (id, workspace_id, agent_id, title) on public.agent_chat_conversations to authenticated;
grant update (title) on public.agent_chat_conversations to authenticated;
grant select, delete on public.agent_chat_messages to authenticated;
grant insert (conversation_id, role, content, metadata) on public.agent_chat_messages to authenticated;
grant all on public.agent_chat_conversations, public.agent_chat_messages to service_role;

-- Users read, rename and delete their own conversations only.
create policy agent_chat_conversations_own on public.agent_chat_conversations for select to authenticated
  using (user_id = (select auth.uid()));
-- They start conversations in their own name, scoped to a workspace they belong to (or none).
create policy agent_chat_conversations_create on public.agent_chat_conversations for insert to authenticated
  with check (
    user_id = (select auth.uid())
    and (workspace_id is null or public.is_workspace_member(workspace_id))
  );
create policy agent_chat_conversations_rename on public.agent_chat_conversations for update to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()));
create policy agent_chat_conversations_remove on public.agent_chat_conversations for delete to authenticated
  using (user_id = (select auth.uid()));

-- Messages are visible and writable with their conversation; the history is append-only
-- (no update policy), and goes with the conversation when it is deleted.
create policy agent_chat_messages_own on public.agent_chat_messages for select to authenticated
  using (exists (
    select 1 from public.agent_chat_conversations c
     where c.id = conversation_id and c.user_id = (select auth.uid())
  ));
create policy agent_chat_messages_add on public.agent_chat_messages for insert to authenticated
  with check (exists (
    select 1 from public.agent_chat_conversations c
     where c.id = conversation_id and c.user_id = (select auth.uid())
  ));
create policy agent_chat_messages_remove on public.agent_chat_messages for delete to authenticated
  using (exists (
    select 1 from public.agent_chat_conversations c
     where c.id = conversation_id and c.user_id = (select auth.uid())
  ));
