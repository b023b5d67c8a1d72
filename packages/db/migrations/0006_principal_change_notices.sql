-- A change to what a credential stands for (a session or key ended, a membership, a plan, an account)
-- is announced on the channel `aqs_principals`, once per statement. A process that caches principals
-- (the embedded store's owner) forgets them on it. Writing `last_seen_at` / `last_used_at` announces nothing.
CREATE FUNCTION aqs_principals_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('aqs_principals', TG_TABLE_NAME);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER sessions_principals_changed
  AFTER UPDATE OF user_id, token_hash, absolute_expires_at OR DELETE OR TRUNCATE ON sessions
  FOR EACH STATEMENT EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER api_keys_principals_changed
  AFTER UPDATE OF user_id, workspace_id, key_hash, revoked_at OR DELETE OR TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER users_principals_changed
  AFTER UPDATE OF email, name, email_verified_at, current_workspace_id, created_at OR DELETE OR TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER workspace_members_principals_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON workspace_members
  FOR EACH STATEMENT EXECUTE FUNCTION aqs_principals_changed();
--> statement-breakpoint
CREATE TRIGGER workspaces_principals_changed
  AFTER UPDATE OF name, owner_user_id, personal, plan OR DELETE OR TRUNCATE ON workspaces
  FOR EACH STATEMENT EXECUTE FUNCTION aqs_principals_changed();
