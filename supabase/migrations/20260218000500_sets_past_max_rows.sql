-- Function results past PostgREST's max_rows (1,000 rows per response, cut without an error).
--
-- store_duplicate_detections returned `setof duplicate_detection_cache`, one row per stored pair,
-- while batch-detect and the duplicate_scan agent store up to 10,000 pairs in one call: every pair
-- was written, but the caller saw only the first 1,000 rows (a 500 in batch-detect, wrong counts
-- in the agent). A write cannot be paged with range() (each page would run the upsert again), so
-- it now answers ONE jsonb value: the array of the stored rows (to_jsonb of each, the same fields
-- as before), which max_rows does not cut. Same name, arguments, security and grants; only the
-- return type changes, hence drop and create.
--
-- (price_index_entries, the other set of this kind, is read-only and is paged by its caller with
-- order(kb_doc_id) + range(), so it is unchanged.)

drop function public.store_duplicate_detections(uuid, jsonb);

-- Stores the pairs batch-detect found (p_pairs: DuplicatePair objects of the domain code, ids in
-- order) in one statement. A pair seen before gets fresh scores but keeps its status and review:
-- a dismissed pair stays dismissed when detection runs again. Pairs no longer detected are left
-- alone. SECURITY INVOKER: the insert and update policies decide. Answers a jsonb array of the
-- stored rows, one per pair.
create function public.store_duplicate_detections(p_workspace_id uuid, p_pairs jsonb)
returns jsonb
language sql security invoker set search_path = '' as $$
  with stored as (
    insert into public.duplicate_detection_cache as c (
      workspace_id, product_id_1, product_id_2, overall_similarity_score, name_similarity,
      description_similarity, metadata_similarity, similarity_breakdown, is_duplicate, confidence_level)
    select p_workspace_id, x.product_id_1, x.product_id_2, x.overall_similarity, x.name_similarity,
           x.description_similarity, x.metadata_similarity, coalesce(x.similarity_breakdown, '{}'::jsonb), true,
           x.confidence_level
      from jsonb_to_recordset(p_pairs) as x(
        product_id_1 uuid, product_id_2 uuid, overall_similarity double precision, name_similarity double precision,
        description_similarity double precision, metadata_similarity double precision, similarity_breakdown jsonb,
        confidence_level text)
    on conflict (workspace_id, product_id_1, product_id_2) do update
      set overall_similarity_score = excluded.overall_similarity_score,
          name_similarity = excluded.name_similarity,
          description_similarity = excluded.description_similarity,
          metadata_similarity = excluded.metadata_similarity,
          similarity_breakdown = excluded.similarity_breakdown,
          is_duplicate = true,
          confidence_level = excluded.confidence_level
    returning c.*
  )
  select coalesce(jsonb_agg(to_jsonb(s)), '[]'::jsonb) from stored s
$$;
revoke execute on function public.store_duplicate_detections(uuid, jsonb) from public, anon;
grant execute on function public.store_duplicate_detections(uuid, jsonb) to authenticated, service_role;
