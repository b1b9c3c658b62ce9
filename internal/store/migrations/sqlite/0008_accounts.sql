-- Usernames are unique ignoring case, so a log-in or a profile looked up
-- by name finds one account. lower() folds ASCII letters only, which is
-- all the username rule allows (ctf.FoldUsername is the same key). Before
-- this runs, Migrate names the usernames that clash (checkUsernameCase).
CREATE UNIQUE INDEX users_username_lower ON users (lower(username));
