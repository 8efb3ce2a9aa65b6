-- Quick pick and KB ingest speed (perf): keep a chunk's text and full-text vector in its row.
--
-- 20260214000200 stored kb_doc_chunks.embedding inline (PLAIN: a 1024-d vector is 4,104 bytes)
-- so distances need no detoasting. A side effect: every row is then over the 2 kB TOAST
-- threshold, so the toaster moved the other EXTENDED columns - content, heading and the
-- generated tsvector fts - out of line into the TOAST table. Every full-text filter
-- (`fts @@ query`) then fetched fts through the TOAST index: 4 buffer reads per row instead of 1.
-- Measured (bench corpus: 1,000 price documents = 2,400 chunks of one category; the planner
-- scans the category and filters, as the category holds every row): the all-words text tier of
-- kb_hybrid_search 21-34 ms -> 3-4 ms, the whole kb_hybrid_search p50 ~25 ms -> ~13 ms. Ingest
-- no longer writes three TOAST entries (and their TOAST index entries) per chunk either.
--
-- MAIN: compressed inline where it helps, and out of line only as a last resort (a row that
-- would not fit a page otherwise), so nothing is refused. Like the PLAIN change before it, this
-- applies to rows written from now on (an existing row changes on its next write); nothing else
-- changes - same columns, indexes, policies, functions and results.
--
-- document_chunks (rag_search) has the same layout (embedding PLAIN, content and fts EXTENDED)
-- and the same full-text filters, so it gets the same storage.

alter table public.kb_doc_chunks
  alter column content set storage main,
  alter column heading set storage main,
  alter column fts set storage main;

alter table public.document_chunks
  alter column content set storage main,
  alter column fts set storage main;
