-- A change to what a credential stands for (a session or key ended, a membership, a plan, an account)
-- is announced on the channel `aqs_principals`. A process that caches principals (the embedded store's
-- owner) forgets them on it. Row-level, so a statement that changes no row (the sign-in check's delete
-- of an expired session, most of the time) announces nothing; PostgreSQL folds the notices of one
-- transaction into one. Writing `last_seen_at` / `last_used_at` announces nothing either.
CREATE FUNCTION aqs_principals_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('aqs_principals', TG_TABLE_NAME);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER sessions_principals_changed
  AFTER UPDATE OF user_id, token_hash, absolute_expires_at OR DELETE ON sessions
  FOR EACH ROW EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER api_keys_principals_changed
  AFTER UPDATE OF user_id, workspace_id, key_hash, revoked_at OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER users_principals_changed
  AFTER UPDATE OF email, name, email_verified_at, current_workspace_id, created_at OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER workspace_members_principals_changed
  AFTER INSERT OR UPDATE OR DELETE ON workspace_members
  FOR EACH ROW EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER workspaces_principals_changed
  AFTER UPDATE OF name, owner_user_id, personal, plan OR DELETE ON workspaces
  FOR EACH ROW EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER sessions_principals_truncated AFTER TRUNCATE ON sessions
  FOR EACH STATEMENT EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER api_keys_principals_truncated AFTER TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER users_principals_truncated AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER workspace_members_principals_truncated AFTER TRUNCATE ON workspace_members
  FOR EACH STATEMENT EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER workspaces_principals_truncated AFTER TRUNCATE ON workspaces
  FOR EACH STATEMENT EXECUTE FUNCTION aqs_principals_changed();
