-- Products: members write catalogue fields only.
-- A table-wide UPDATE let a member move a product into a workspace of their own (it left the
-- team's catalogue: a delete in all but name, which only owners and admins may do), and a
-- table-wide INSERT/UPDATE let anyone write created_by in another user's name. Column privileges
-- close both whatever the policies say; merge_products / undo_merge run as the function owner
-- and are not affected. created_by keeps its default, auth.uid().

revoke insert, update on public.products from authenticated;
grant insert (workspace_id, name, description, sku, category, metadata, status) on public.products to authenticated;
grant update (name, description, sku, category, metadata, status) on public.products to authenticated;
