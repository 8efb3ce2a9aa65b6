-- The PDF pipeline's stages answer through forced tool calls (issue 33: one model layer,
-- packages/shared/llm/): the model is made to call report_products, classify_image or
-- report_product_metadata, whose input schema is the stage's zod schema, instead of writing a
-- JSON object into its text. The seeded prompts of 20260208000100_admin_prompts.sql still asked
-- for "one JSON object {...}", which now contradicts the call the model is made to make (and, on
-- the sandbox, failed every upload at classification: "the model's reply was not JSON").
--
-- Each seed still as seeded gets the new default (pipeline/prompts.ts PROMPT_DEFAULTS) through
-- admin_update_prompt, so the seed goes to ai_prompt_history like any other replaced version
-- (replaced_by null: the platform). A prompt a platform admin has edited is left as they wrote
-- it: the forced tool call works whatever the prompt says. The OCR prompt asks for text and is
-- unchanged. No table, policy or function changes.

select public.admin_update_prompt(
  p.stage, p.category, p.new_text, null,
  'stages answer through a forced tool call: the prompt says what to fill, not which JSON to write', null)
from (values
  ('extract', 'product_discovery',
   $p$You find the products in a building-materials catalogue. Answer with one JSON object {"products":[{"name":string,"page_start":number,"page_end":number}],"index_pages":[number]}: every product with the pages it is described on, and the pages that are only a table of contents or an index.$p$,
   $p$You find the products in a building-materials catalogue: every product with its name and the first and last page it is described on, and the pages that are only a table of contents or an index.$p$),
  ('classify-images', 'image_classification',
   $p$You classify images from building-materials catalogues. Answer with one JSON object {"category": one of "material", "certificate", "logo", "specification", "other", "confidence": 0..1}. `material` is a photo or swatch of a product's material or surface.$p$,
   $p$You classify images from building-materials catalogues: give the image's category (material, certificate, logo, specification, other) and your confidence in it from 0 to 1. `material` is a photo or swatch of a product's material or surface.$p$),
  ('classify-images', 'image_validation',
   $p$You classify images from building-materials catalogues. Answer with one JSON object {"category": one of "material", "certificate", "logo", "specification", "other", "confidence": 0..1}. `material` is a photo or swatch of a product's material or surface.$p$,
   $p$You classify images from building-materials catalogues: give the image's category (material, certificate, logo, specification, other) and your confidence in it from 0 to 1. `material` is a photo or swatch of a product's material or surface.$p$),
  ('extract-metadata', 'product_metadata',
   $p$You extract product attributes from a building-materials catalogue. Answer with one JSON object with the lists dimensions, colors, patterns, materials, finishes, applications, certifications (strings; empty when absent) and any other attribute you find as a key.$p$,
   $p$You extract product attributes from a building-materials catalogue: the lists dimensions, colors, patterns, materials, finishes, applications and certifications (strings; empty when absent), and any other attribute you find under its own name.$p$)
) as p(stage, category, seeded_text, new_text)
join public.ai_prompts a on a.stage = p.stage and a.category = p.category and a.prompt_text = p.seeded_text;
