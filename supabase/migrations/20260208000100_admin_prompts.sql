-- The PDF pipeline's prompts, editable by platform admins (the gateway's Admin prompts group):
-- one row per (stage, category) holding the current system prompt and its version, every
-- replaced version kept in ai_prompt_history with who made it, when and why, and the prompt
-- tests admins ran (the model's answer, tokens and latency). The pipeline reads ai_prompts at
-- the start of a run (services/ai-backend/pipeline/prompts.ts), falling back to its code default
-- when a row is missing; the seeds below are those defaults.
--
-- Platform-wide configuration, not workspace data: platform admins read it through /rest/v1,
-- and only the service role (the AI backend, after its platform-admin check) writes it.

create table public.ai_prompts (
  id uuid primary key default gen_random_uuid(),
  stage text not null check (stage ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
  category text not null check (category ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
  name text not null,
  description text,
  prompt_text text not null check (length(prompt_text) between 1 and 20000),
  version integer not null default 1 check (version >= 1),
  -- Who made the current version, when and why (null updated_by: the seed).
  updated_by uuid references auth.users (id) on delete set null,
  updated_at timestamptz not null default now(),
  change_reason text,
  created_at timestamptz not null default now(),
  unique (stage, category)
);

create table public.ai_prompt_history (
  id uuid primary key default gen_random_uuid(),
  prompt_id uuid not null references public.ai_prompts (id) on delete cascade,
  -- The replaced version as it was: its number, text, and who made it, when and why.
  version integer not null,
  prompt_text text not null,
  description text,
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null,
  change_reason text,
  -- The update that replaced it.
  replaced_by uuid references auth.users (id) on delete set null,
  replaced_at timestamptz not null default now(),
  unique (prompt_id, version)
);
create index ai_prompt_history_prompt_idx on public.ai_prompt_history (prompt_id, version desc);

create table public.ai_prompt_tests (
  id uuid primary key default gen_random_uuid(),
  -- The stored prompt tested (null: a prompt text given in the request).
  prompt_id uuid references public.ai_prompts (id) on delete set null,
  prompt_version integer,
  stage text,
  category text,
  prompt_text text not null,
  input text not null,
  model text not null,
  output text,
  input_tokens integer,
  output_tokens integer,
  latency_ms integer not null,
  ok boolean not null,
  error text,
  tested_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now()
);
create index ai_prompt_tests_prompt_idx on public.ai_prompt_tests (prompt_id, created_at desc);

alter table public.ai_prompts enable row level security;
alter table public.ai_prompt_history enable row level security;
alter table public.ai_prompt_tests enable row level security;
grant select on public.ai_prompts, public.ai_prompt_history, public.ai_prompt_tests to authenticated;
grant all on public.ai_prompts, public.ai_prompt_history, public.ai_prompt_tests to service_role;

-- Prompts are platform configuration: only platform admins read them (no user writes at all).
create policy ai_prompts_admin_read on public.ai_prompts for select to authenticated
  using (public.has_platform_role(array['admin']));
-- The version history is read by platform admins only.
create policy ai_prompt_history_admin_read on public.ai_prompt_history for select to authenticated
  using (public.has_platform_role(array['admin']));
-- Prompt test records are read by platform admins only.
create policy ai_prompt_tests_admin_read on public.ai_prompt_tests for select to authenticated
  using (public.has_platform_role(array['admin']));

-- Replaces a prompt's text (and optionally its description) as one transaction: the current
-- version goes to the history with who/when/why it was made, the row gets version + 1 and this
-- update's who/when/why. Nothing changes (and no version is made) when text and description are
-- the same. Returns {prompt, changed, previous_version}, or null when the prompt does not exist.
create function public.admin_update_prompt(
  p_stage text, p_category text, p_prompt_text text, p_description text, p_change_reason text, p_user uuid
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_old public.ai_prompts;
  v_new public.ai_prompts;
begin
  select * into v_old from public.ai_prompts where stage = p_stage and category = p_category for update;
  if not found then
    return null;
  end if;
  if v_old.prompt_text = p_prompt_text
     and v_old.description is not distinct from coalesce(p_description, v_old.description) then
    return jsonb_build_object('prompt', to_jsonb(v_old), 'changed', false, 'previous_version', null);
  end if;
  insert into public.ai_prompt_history (prompt_id, version, prompt_text, description, created_by, created_at,
                                        change_reason, replaced_by)
  values (v_old.id, v_old.version, v_old.prompt_text, v_old.description, v_old.updated_by, v_old.updated_at,
          v_old.change_reason, p_user);
  update public.ai_prompts
     set prompt_text = p_prompt_text, description = coalesce(p_description, description),
         version = v_old.version + 1, updated_by = p_user, updated_at = now(), change_reason = p_change_reason
   where id = v_old.id
  returning * into v_new;
  return jsonb_build_object('prompt', to_jsonb(v_new), 'changed', true, 'previous_version', v_old.version);
end $$;

revoke execute on function public.admin_update_prompt(text, text, text, text, text, uuid)
  from public, anon, authenticated;
grant execute on function public.admin_update_prompt(text, text, text, text, text, uuid) to service_role;

-- The seeds: the prompts the pipeline's model calls send, and admin_process_ocr's
-- (pipeline/prompts.ts PROMPT_DEFAULTS).
insert into public.ai_prompts (stage, category, name, description, prompt_text, change_reason) values
  ('extract', 'product_discovery', 'Product discovery',
   'Finds each product''s name and page range, and the index pages, from the PDF''s text.',
   $p$You find the products in a building-materials catalogue. Answer with one JSON object {"products":[{"name":string,"page_start":number,"page_end":number}],"index_pages":[number]}: every product with the pages it is described on, and the pages that are only a table of contents or an index.$p$,
   'seeded from the pipeline''s defaults'),
  ('classify-images', 'image_classification', 'Image classification (primary model)',
   'Names each extracted image''s category with a confidence (vision model).',
   $p$You classify images from building-materials catalogues. Answer with one JSON object {"category": one of "material", "certificate", "logo", "specification", "other", "confidence": 0..1}. `material` is a photo or swatch of a product's material or surface.$p$,
   'seeded from the pipeline''s defaults'),
  ('classify-images', 'image_validation', 'Image classification (validation model)',
   'Asked when the primary model''s confidence is below the threshold; the first answer is quoted in the message and this model''s answer is final.',
   $p$You classify images from building-materials catalogues. Answer with one JSON object {"category": one of "material", "certificate", "logo", "specification", "other", "confidence": 0..1}. `material` is a photo or swatch of a product's material or surface.$p$,
   'seeded from the pipeline''s defaults'),
  ('extract-metadata', 'product_metadata', 'Product metadata extraction',
   'Reads a product''s pages and answers its attributes as lists.',
   $p$You extract product attributes from a building-materials catalogue. Answer with one JSON object with the lists dimensions, colors, patterns, materials, finishes, applications, certifications (strings; empty when absent) and any other attribute you find as a key.$p$,
   'seeded from the pipeline''s defaults'),
  ('ocr', 'image_text', 'Image text (OCR)',
   'admin_process_ocr: transcribes the text in a document image (vision model).',
   $p$You read the text in an image from a building-materials catalogue. Answer with the text exactly as printed, line by line, and nothing else; answer an empty reply when there is no text.$p$,
   'seeded from the pipeline''s defaults');
