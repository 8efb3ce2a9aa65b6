-- Demo data for local runs (applied on a fresh database only). Tests do not rely on it.
-- Users are created through /auth/v1 so that their passwords are real bcrypt hashes; this file
-- only adds what needs no user.
select 1;
